/* test_race_ring.c - the race detector on a pipelined ring all-reduce over
 * 2-4 ranks of the sim (examples/spmd/ring_pipelined.lua, one process per
 * rank as spmd runs it): the add of slice j on the default stream overlaps
 * slice j+1's transfer on the comm stream, every slice ordered by its own
 * events. No race; and with one wait left out (rank 0, first step, slice 1)
 * one race, on rank 0, naming that slice of scratch and both lines. Before
 * the detector kept a line's slices apart across events, this correct ring
 * drew false races on every rank. */
#include "comm_fork.c"
#include "mgpu/lua_mgpu.h"
#include "mgpu/race.h"
#include "tap.h"
#include <stdlib.h>

#define SLICES 4
#define COUNT 4099 /* the example's default: chunks differ by one element */

typedef struct ring_case {
    int nowait;
    const char *code;
    size_t len;
    int add_line, recv_line; /* the example's lines of the add and of the receive */
} ring_case;

typedef struct child_ctx {
    mgpu_backend *be;
    const mgpu_bootstrap *bs;
    mgpu_comm *world;
    int races;
    char text[1024];
} child_ctx;

static mgpu_result make_world(void *ctx, mgpu_comm **out)
{
    child_ctx *c = ctx;
    if (!c->world) {
        mgpu_comm_config cfg = {.device = c->bs->rank % 8, .blocking = 1, .timeout_s = 20, .name = "world"};
        MGPU_CHECK(mgpu_comm_init(c->be, c->bs, &cfg, &c->world));
    }
    *out = c->world;
    return MGPU_OK;
}

static void on_race(void *ctx, const mgpu_race_report *r)
{
    child_ctx *c = ctx;
    if (c->races++ == 0) snprintf(c->text, sizeof c->text, "%s", r->text);
}

/* One rank: the example on the sim with the detector on, as spmd runs it.
 * Exit 0 when its races are what the case wants. */
static int ring_child(int rank, int n, const mgpu_bootstrap *bs, void *arg)
{
    const ring_case *k = arg;
    child_ctx c = {.bs = bs};
    mgpu_backend_config cfg = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
    mgpu_lua *sb = NULL;
    if (mgpu_backend_open(&cfg, &c.be) != MGPU_OK) return 10;
    mgpu_race_enable(c.be, MGPU_RACE_ON | MGPU_RACE_SHOW);
    mgpu_race_set_report_fn(c.be, on_race, &c);
    mgpu_lua_config lc = {.time_limit_s = 60};
    mgpu_lua_rank_host host = {.be = c.be, .rank = rank, .world = n, .local_rank = rank, .device = rank % 8,
                               .ctx = &c, .world_comm = make_world};
    char slices[8], count[16];
    snprintf(slices, sizeof slices, "%d", SLICES);
    snprintf(count, sizeof count, "%d", COUNT);
    const char *args[] = {slices, k->nowait ? "nowait" : "-", count};
    if (mgpu_lua_open(&lc, &sb) != MGPU_OK || mgpu_lua_open_rank_api(sb, &host, args, 3) != MGPU_OK ||
        mgpu_lua_open_comm_api(sb) != MGPU_OK)
        return 11;
    if (mgpu_lua_run(sb, k->code, k->len, "@ring_pipelined.lua", 0) != MGPU_OK) {
        fprintf(stderr, "rank %d of %d: %s\n", rank, n, mgpu_lua_error_message(sb));
        return 12;
    }
    int rc = 0;
    if (!k->nowait || rank != 0) {
        if (c.races) {
            fprintf(stderr, "rank %d of %d%s: %d race(s), the first: %s\n", rank, n, k->nowait ? " (nowait)" : "",
                    c.races, c.text);
            rc = 13;
        }
    } else {
        /* slice j of a chunk is its elements [j L, (j+1) L), L = ceil(longest chunk / SLICES) */
        size_t longest = COUNT / n + (COUNT % n ? 1 : 0), L = (longest + SLICES - 1) / SLICES;
        char want[512];
        snprintf(want, sizeof want,
                 "read of scratch[%zu:%zu] on the default stream (add) at ring_pipelined.lua:%d is not ordered after "
                 "the write on the comm stream (recv) at ring_pipelined.lua:%d",
                 L, 2 * L, k->add_line, k->recv_line);
        if (c.races != 1 || !strstr(c.text, want)) {
            fprintf(stderr, "rank 0 of %d (nowait): %d race(s) (want 1), the first: %s\nwanted: %s\n", n, c.races,
                    c.text, want);
            rc = 14;
        }
    }
    mgpu_lua_close(sb);
    if (c.world) mgpu_comm_destroy(c.world);
    mgpu_backend_close(c.be);
    return rc;
}

/* The 1-based line of the first line of code holding `what`. */
static int line_of(const char *code, const char *what)
{
    const char *at = strstr(code, what);
    if (!at) return 0;
    int line = 1;
    for (const char *p = code; p < at; p++) line += *p == '\n';
    return line;
}

static char *read_example(size_t *len)
{
    FILE *f = fopen(MGPU_SOURCE_DIR "/examples/spmd/ring_pipelined.lua", "rb");
    if (!f) return NULL;
    char *buf = malloc(1 << 16);
    *len = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
    fclose(f);
    if (buf) buf[*len] = '\0';
    return buf;
}

int main(void)
{
    ring_case k = {0};
    char *code = read_example(&k.len);
    CHECKF(code != NULL, "read %s/examples/spmd/ring_pipelined.lua", MGPU_SOURCE_DIR);
    if (!code) return tap_done();
    k.code = code;
    k.add_line = line_of(code, "mgpu.nn.add(into, got, into)");
    k.recv_line = line_of(code, "comm:recv(got, left, cs)");
    CHECKF(k.add_line > 0 && k.recv_line > 0, "the example's add and receive lines: %d, %d", k.add_line, k.recv_line);
    for (int n = 2; n <= 4; n++)
        for (k.nowait = 0; k.nowait <= 1; k.nowait++) {
            int codes[4];
            int bad = comm_fork_run(n, 120.0, ring_child, &k, codes);
            CHECKF(bad == 0, "%d ranks%s: %d rank(s) failed (rank 0 exit %d)", n, k.nowait ? ", one wait left out" : "",
                   bad, codes[0]);
        }
    free(code);
    return tap_done();
}
