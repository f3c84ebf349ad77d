/* runner_wire.h - what both ends of the step runner's channel share
 * (runner.c, the parent; runner_child.c, the child): lines of JSON over a
 * socket and the verdict as JSON. A file of its own below both, so that the
 * parent (which run.c calls) and the child (which calls run.c) do not reach
 * each other. */
#ifndef MGPU_LAB_RUNNER_WIRE_H
#define MGPU_LAB_RUNNER_WIRE_H
#include "mgpu/lab.h"
#include <jansson.h>
#include <stddef.h>

/* The child's end of the channel (the parent dup2s its socket there). */
#define RUNNER_FD 3

typedef struct line_buf {
    char *p;
    size_t n, cap;
    int eof;
} line_buf;

/* Read what is there (fd is readable); 0 at end of file or on an error. */
int lab_line_fill(line_buf *b, int fd);
/* The next complete line (NUL-terminated, in b), or NULL; lab_line_take drops it. */
char *lab_line_next(line_buf *b, size_t *len);
void lab_line_take(line_buf *b, size_t len);

/* Send doc as one line (doc's reference is taken, NULL included). */
mgpu_result lab_wire_send(int fd, json_t *doc);
/* A JSON string of text, whatever its bytes (a log line need not be UTF-8). */
json_t *lab_wire_str(const char *text);
const char *lab_wire_get(json_t *o, const char *k);

json_t *lab_verdict_to_json(const mgpu_lab_verdict *v);
void lab_verdict_from_json(json_t *o, mgpu_lab_verdict *v);

#endif
