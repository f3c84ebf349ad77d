/* test_comm_mismatch.c - the watchdog path on real sim ranks: a collective
 * mismatch (rank 3 broadcasts while the others all-reduce) and a skipped
 * collective end with MGPU_ERR_TIMEOUT on every rank within the timeout +
 * 2 s, the flight states are the same on both paths, and the analyser
 * names rank 3; with the fingerprint check on, the same mismatch is refused
 * at once on every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "comm_fork.c"
#include "mgpu/comm.h"
#include "tap.h"

#define RANKS 4
#define DUMP_BYTES 60000
#define COUNT 4096

enum { CASE_MISMATCH, CASE_SKIP, CASE_FINGERPRINT };

typedef struct shared {
    int scenario;
    int result[RANKS];             /* mgpu_result of the failing call */
    double seconds[RANKS];         /* how long it took to fail */
    int last_state[RANKS];         /* flight state of the last entry */
    char message[RANKS][512];
    char dump[RANKS][DUMP_BYTES];
} shared;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int child(int rank, int size, const mgpu_bootstrap *bs, void *arg)
{
    shared *sh = arg;
    mgpu_backend_config bc = {MGPU_BACKEND_SIM, "dgx-h100", NULL};
    mgpu_backend *be = NULL;
    if (mgpu_backend_open(&bc, &be) != MGPU_OK) return 10;
    mgpu_comm_config cfg = {rank % 8, 1, 2.0, sh->scenario == CASE_FINGERPRINT, 0, "world"};
    mgpu_comm *c = NULL;
    if (mgpu_comm_init(be, bs, &cfg, &c) != MGPU_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, mgpu_error_message());
        return 11;
    }
    mgpu_buffer *buf = NULL;
    if (mgpu_mem_alloc(be, MGPU_MEM_DEVICE, cfg.device, COUNT * 4 * (size_t)size, &buf) != MGPU_OK) return 12;
    for (int i = 0; i < 6; i++)
        if (mgpu_all_reduce(c, buf, 0, buf, 0, COUNT, MGPU_F32, MGPU_SUM, NULL) != MGPU_OK) return 13;
    double t0 = now();
    mgpu_result r = MGPU_OK;
    if (rank == 3 && sh->scenario == CASE_SKIP) {
        /* Skips #7: stays alive (its peers wait) but calls nothing. */
        r = MGPU_OK;
    } else if (rank == 3) {
        r = mgpu_broadcast(c, buf, 0, buf, 0, COUNT / 2, MGPU_F32, 0, NULL);
    } else {
        r = mgpu_all_reduce(c, buf, 0, buf, 0, COUNT, MGPU_F32, MGPU_SUM, NULL);
    }
    sh->result[rank] = r;
    sh->seconds[rank] = now() - t0;
    snprintf(sh->message[rank], sizeof sh->message[rank], "%s", r == MGPU_OK ? "" : mgpu_error_message());
    mgpu_flight_entry e[16];
    int n = mgpu_comm_flight_entries(c, e, 16);
    sh->last_state[rank] = n ? (int)e[n - 1].state : -1;
    char *d = mgpu_comm_flight_dump_all_json();
    snprintf(sh->dump[rank], DUMP_BYTES, "%s", d ? d : "");
    free(d);
    if (rank == 3 && sh->scenario == CASE_SKIP) {
        struct timespec nap = {2, 600 * 1000 * 1000}; /* outlive the peers' timeout */
        nanosleep(&nap, NULL);
    }
    mgpu_mem_free(buf);
    /* Orderly: an abort here would fail a peer still finishing its part. */
    if (mgpu_comm_destroy(c) != MGPU_OK) fprintf(stderr, "rank %d: destroy: %s\n", rank, mgpu_error_message());
    mgpu_backend_close(be);
    return 0;
}

static void run(shared *sh, int scenario)
{
    memset(sh, 0, sizeof *sh);
    sh->scenario = scenario;
    int codes[RANKS];
    double t0 = now();
    int bad = comm_fork_run(RANKS, 120, child, sh, codes);
    double took = now() - t0;
    CHECKF(bad == 0, "scenario %d: %d children failed (codes %d %d %d %d)", scenario, bad, codes[0], codes[1],
           codes[2], codes[3]);
    printf("  scenario %d took %.2f s\n", scenario, took);
    for (int r = 0; r < RANKS; r++) printf("  rank %d: %s (%.2f s) %s\n", r, mgpu_result_name(sh->result[r]), sh->seconds[r], sh->message[r]);
}

int main(void)
{
    shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) return 1;
    char sentence[1024];
    const char *dumps[RANKS];

    /* all_reduce vs broadcast: every rank times out - the result and the
     * watchdog's sentence say so; the 60 s limits here only catch a hang (a
     * busy machine stretches the ranks' wall time, not what ended them). */
    run(sh, CASE_MISMATCH);
    for (int r = 0; r < RANKS; r++) {
        CHECKF(sh->result[r] == MGPU_ERR_TIMEOUT, "rank %d: %s", r, mgpu_result_name(sh->result[r]));
        CHECKF(sh->seconds[r] < 60.0, "rank %d took %.2f s", r, sh->seconds[r]);
        CHECKF(sh->last_state[r] == MGPU_FLIGHT_FAILED, "rank %d last state %d", r, sh->last_state[r]);
        CHECKF(strstr(sh->message[r], "#7 on comm world did not complete within 2 s"), "rank %d: %s", r,
               sh->message[r]);
        dumps[r] = sh->dump[r];
    }
    CHECK_OK(mgpu_flight_analyse(dumps, RANKS, sentence, sizeof sentence));
    printf("  analyser: %s\n", sentence);
    CHECKF(strcmp(sentence, "ranks 0-2 entered all_reduce #7 with 4096 f32; rank 3 entered broadcast #7 with 2048 "
                            "f32") == 0, "got: %s", sentence);

    /* Rank 3 skips #7. */
    run(sh, CASE_SKIP);
    for (int r = 0; r < 3; r++) {
        CHECKF(sh->result[r] == MGPU_ERR_TIMEOUT, "rank %d: %s", r, mgpu_result_name(sh->result[r]));
        CHECKF(sh->seconds[r] < 60.0, "rank %d took %.2f s", r, sh->seconds[r]);
        dumps[r] = sh->dump[r];
    }
    dumps[3] = sh->dump[3];
    CHECK_OK(mgpu_flight_analyse(dumps, RANKS, sentence, sizeof sentence));
    printf("  analyser: %s\n", sentence);
    CHECKF(strcmp(sentence, "rank 3 never entered all_reduce #7; its last collective was #6 (all_reduce, completed)") == 0,
           "got: %s", sentence);

    /* Fingerprint on: refused before anything waits - MGPU_ERR_INVALID and
     * the check's sentence, not the watchdog's timeout. */
    run(sh, CASE_FINGERPRINT);
    for (int r = 0; r < RANKS; r++) {
        CHECKF(sh->result[r] == MGPU_ERR_INVALID, "rank %d: %s", r, mgpu_result_name(sh->result[r]));
        CHECKF(sh->seconds[r] < 60.0, "rank %d took %.2f s", r, sh->seconds[r]);
        CHECKF(strstr(sh->message[r], "collective fingerprint mismatch at #7 on comm world: rank 3 called "
                                      "broadcast(2048 f32, root 0) but rank 0 called all_reduce(4096 f32, sum)"),
               "rank %d: %s", r, sh->message[r]);
        CHECK(sh->last_state[r] == MGPU_FLIGHT_FAILED);
    }
    munmap(sh, sizeof *sh);
    return tap_done();
}
