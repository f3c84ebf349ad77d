/* log_keep.h - the log lines a run keeps for its JSON report or its lab,
 * bounded: a script that prints a million lines must not hold a million
 * lines in the coordinator (2 ranks x 1M lines took 1.1 GB). The first
 * lines and the last ones are kept (where a run starts and where it
 * ended); what was dropped between them is counted and said in one line. */
#ifndef MGPU_LOG_KEEP_H
#define MGPU_LOG_KEEP_H
#include <jansson.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_log_keep {
    json_t *head;                 /* [{rank, text}] the first lines */
    json_t **tail;                /* a ring of the last lines */
    size_t head_bytes, tail_bytes;
    size_t tail_n, tail_first;    /* lines in the ring, index of the oldest */
    size_t dropped;               /* lines left out between head and tail */
} mgpu_log_keep;

/* Each of head and tail keeps at most this many lines and bytes of text. */
#define MGPU_LOG_KEEP_LINES 5000
#define MGPU_LOG_KEEP_BYTES (8u << 20)

void mgpu_log_keep_init(mgpu_log_keep *k);
void mgpu_log_keep_add(mgpu_log_keep *k, int rank, const char *text);
/* The kept lines in order, as a new array [{rank, text}]; when lines were
 * dropped, an entry {rank: -1, text: "... N log lines left out ..."}
 * stands where they were. The keeper stays usable. */
json_t *mgpu_log_keep_json(const mgpu_log_keep *k);
void mgpu_log_keep_free(mgpu_log_keep *k);

#ifdef __cplusplus
}
#endif
#endif
