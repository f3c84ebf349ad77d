/* test_comm_analyse.c - the flight-recorder analyser on hand-written dumps:
 * every kind of first divergence it must name in one sentence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu/comm.h"
#include "tap.h"

/* A dump of `n` collectives on comm "world" (id 00..2a): entry i is
 * seq first+i, op ops[i] (or ops[0]), count counts[i] (or counts[0]), f32,
 * completed except the last which is in `last_state`. */
typedef struct spec {
    int rank, size, n;
    unsigned first;
    const char *ops[8];
    unsigned long counts[8];
    const char *dtype;
    int root;
    const char *last_state;
    const char *comm, *id;
    const char *where[8];   /* the entry's call site, or none */
} spec;

static char *mk(const spec *s)
{
    size_t cap = 4096;
    char *out = malloc(cap);
    int k = snprintf(out, cap,
                     "{\"version\":1,\"rank\":%d,\"size\":%d,\"comm\":\"%s\",\"comm_id\":\"%s\","
                     "\"backend\":\"sim\",\"entries\":[",
                     s->rank, s->size, s->comm ? s->comm : "world", s->id ? s->id : "000000000000002a");
    for (int i = 0; i < s->n; i++) {
        const char *op = s->ops[i] ? s->ops[i] : s->ops[0];
        unsigned long count = s->counts[i] ? s->counts[i] : s->counts[0];
        const char *state = i == s->n - 1 && s->last_state ? s->last_state : "completed";
        k += snprintf(out + k, cap - (size_t)k,
                      "%s{\"seq\":%u,\"op\":\"%s\",\"count\":%lu,\"dtype\":\"%s\",\"redop\":\"sum\",\"root\":%d,"
                      "\"device\":0,\"state\":\"%s\",\"t_enqueue_us\":1.0,\"t_start_us\":2.0,\"t_end_us\":3.0",
                      i ? "," : "", s->first + (unsigned)i, op, count, s->dtype ? s->dtype : "f32", s->root, state);
        if (s->where[i]) k += snprintf(out + k, cap - (size_t)k, ",\"where\":\"%s\"", s->where[i]);
        k += snprintf(out + k, cap - (size_t)k, "}");
    }
    snprintf(out + k, cap - (size_t)k, "]}");
    return out;
}

static void analyse(char **dumps, int n, char *out, size_t len)
{
    CHECK_OK(mgpu_flight_analyse((const char *const *)dumps, n, out, len));
    printf("  -> \"%s\"\n", out);
    for (int i = 0; i < n; i++) free(dumps[i]);
}

int main(void)
{
    char s[1024];

    /* The case: ranks 0-2 call all_reduce #7, rank 3 broadcast #7. */
    {
        char *d[4];
        for (int r = 0; r < 3; r++)
            d[r] = mk(&(spec){r, 4, 7, 1, {"all_reduce"}, {1048576}, .root = -1, .last_state = "started"});
        d[3] = mk(&(spec){3, 4, 7, 1, {"all_reduce", [6] = "broadcast"}, {1048576, [6] = 524288}, .root = 0,
                          .last_state = "started"});
        analyse(d, 4, s, sizeof s);
        CHECKF(strcmp(s, "ranks 0-2 entered all_reduce #7 with 1048576 f32; rank 3 entered broadcast #7 with "
                         "524288 f32") == 0, "got: %s", s);
    }
    /* Same op, different count. */
    {
        char *d[4];
        for (int r = 0; r < 4; r++)
            d[r] = mk(&(spec){r, 4, 3, 5, {"all_reduce"}, {r == 1 ? 1000 : 2000}, .root = -1});
        analyse(d, 4, s, sizeof s);
        CHECKF(strcmp(s, "ranks 0, 2-3 entered all_reduce #5 with 2000 f32; rank 1 entered all_reduce #5 with 1000 "
                         "f32 (count mismatch)") == 0, "got: %s", s);
    }
    /* With call sites: each side's script line is named, but only where all
     * ranks of a side called from the same line (ranks 1 and 2 differ). */
    {
        char *d[4];
        for (int r = 0; r < 4; r++)
            d[r] = mk(&(spec){r, 4, 2, 1, {"all_reduce"}, {4096, r == 0 ? 1 : 4096}, .root = -1,
                              .where = {"t.lua:9", r == 0 ? "t.lua:12" : "t.lua:10"}});
        analyse(d, 4, s, sizeof s);
        CHECKF(strcmp(s, "rank 0 entered all_reduce #2 with 1 f32 at t.lua:12; ranks 1-3 entered all_reduce #2 with "
                         "4096 f32 at t.lua:10 (count mismatch)") == 0, "got: %s", s);
        for (int r = 0; r < 4; r++)
            d[r] = mk(&(spec){r, 4, 1, 1, {"all_reduce"}, {r == 0 ? 1 : 4096}, .root = -1,
                              .where = {r == 2 ? "t.lua:11" : "t.lua:10"}});
        analyse(d, 4, s, sizeof s);
        CHECKF(strcmp(s, "rank 0 entered all_reduce #1 with 1 f32 at t.lua:10; ranks 1-3 entered all_reduce #1 with "
                         "4096 f32 (count mismatch)") == 0, "got: %s", s);
    }
    /* Same op and count, different dtype. */
    {
        char *d[2];
        d[0] = mk(&(spec){0, 2, 1, 1, {"all_gather"}, {64}, .dtype = "f32", .root = -1});
        d[1] = mk(&(spec){1, 2, 1, 1, {"all_gather"}, {64}, .dtype = "bf16", .root = -1});
        analyse(d, 2, s, sizeof s);
        CHECKF(strstr(s, "(dtype mismatch)") && strstr(s, "rank 1 entered all_gather #1 with 64 bf16"), "got: %s", s);
    }
    /* Broadcast from different roots. */
    {
        char *d[3];
        for (int r = 0; r < 3; r++) d[r] = mk(&(spec){r, 3, 1, 1, {"broadcast"}, {8}, .root = r == 2 ? 1 : 0});
        analyse(d, 3, s, sizeof s);
        CHECKF(strcmp(s, "ranks 0-1 entered broadcast #1 with 8 f32 from root 0; rank 2 entered broadcast #1 with 8 "
                         "f32 from root 1 (root mismatch)") == 0, "got: %s", s);
    }
    /* A rank that skipped the last collective: it never entered #7. */
    {
        char *d[4];
        for (int r = 0; r < 4; r++)
            d[r] = mk(&(spec){r, 4, r == 3 ? 6 : 7, 1, {"all_reduce"}, {1048576}, .root = -1,
                              .last_state = r == 3 ? "completed" : "started"});
        analyse(d, 4, s, sizeof s);
        CHECKF(strcmp(s, "rank 3 never entered all_reduce #7; its last collective was #6 (all_reduce, completed)") == 0,
               "got: %s", s);
    }
    /* Two ranks skipped, at different points. */
    {
        char *d[4];
        for (int r = 0; r < 4; r++)
            d[r] = mk(&(spec){r, 4, r == 2 ? 5 : r == 3 ? 4 : 6, 1, {"reduce_scatter"}, {16}, .root = -1});
        analyse(d, 4, s, sizeof s);
        CHECKF(strcmp(s, "rank 3 never entered reduce_scatter #5; its last collective was #4 (reduce_scatter, "
                         "completed)") == 0, "got: %s", s);
    }
    /* A rank with no collective at all. */
    {
        char *d[2];
        d[0] = mk(&(spec){0, 2, 1, 1, {"barrier"}, {1}, .root = -1, .last_state = "started"});
        d[1] = mk(&(spec){1, 2, 0, 1, {"barrier"}, {1}, .root = -1});
        analyse(d, 2, s, sizeof s);
        CHECKF(strcmp(s, "rank 1 never entered barrier #1; it entered no collective on comm world") == 0, "got: %s", s);
    }
    /* A rank that sent no dump: nothing known, so no cause is claimed ("it
     * died" was said also of stopped and finished ranks, issue 16 item 17) */
    {
        char *d[4];
        for (int r = 0; r < 4; r++) d[r] = r == 2 ? NULL : mk(&(spec){r, 4, 3, 1, {"all_reduce"}, {4}, .root = -1});
        analyse(d, 4, s, sizeof s);
        CHECKF(strcmp(s, "rank 2 sent no flight record (it sent nothing: died, or stopped answering)") == 0, "got: %s", s);
    }
    /* What the caller saw of each rank without a dump, grouped. */
    {
        char *d[5];
        const char *why[5] = {NULL, "stopped: SIGSTOP, Ctrl-Z or a debugger", NULL, "killed by signal 9 (SIGKILL)",
                              "killed by signal 9 (SIGKILL)"};
        for (int r = 0; r < 5; r++) d[r] = r == 0 || r == 2 ? mk(&(spec){r, 5, 3, 1, {"all_reduce"}, {4}, .root = -1}) : NULL;
        CHECK_OK(mgpu_flight_analyse_why((const char *const *)d, why, 5, s, sizeof s));
        CHECKF(strcmp(s, "rank 1 sent no flight record (stopped: SIGSTOP, Ctrl-Z or a debugger); ranks 3-4 sent no "
                         "flight record (killed by signal 9 (SIGKILL))") == 0,
               "got: %s", s);
        for (int r = 0; r < 5; r++) free(d[r]);
    }
    /* All agree: no sentence. Rings that wrapped at different points still line up. */
    {
        char *d[3];
        for (int r = 0; r < 3; r++)
            d[r] = mk(&(spec){r, 3, 5 + r, (unsigned)(10 - r), {"alltoall"}, {32}, .root = -1});
        analyse(d, 3, s, sizeof s);
        CHECKF(s[0] == '\0', "got: %s", s);
    }
    /* Send/recv entries are not lined up across ranks (only the peers take part). */
    {
        char *d[2];
        d[0] = mk(&(spec){0, 2, 2, 1, {"send", "all_reduce"}, {4}, .root = 1});
        d[1] = mk(&(spec){1, 2, 1, 1, {"all_reduce"}, {4}, .root = -1});
        /* rank 0's all_reduce is its seq 2 here: the recorder numbers p2p apart,
         * so write it as the same seq by hand. */
        free(d[0]);
        d[0] = strdup("{\"rank\":0,\"size\":2,\"comm\":\"world\",\"comm_id\":\"2a\",\"entries\":["
                      "{\"seq\":1,\"op\":\"send\",\"count\":4,\"dtype\":\"f32\",\"redop\":\"sum\",\"root\":1,\"state\":\"completed\"},"
                      "{\"seq\":1,\"op\":\"all_reduce\",\"count\":4,\"dtype\":\"f32\",\"redop\":\"sum\",\"root\":-1,\"state\":\"completed\"}]}");
        free(d[1]);
        d[1] = strdup("{\"rank\":1,\"size\":2,\"comm\":\"world\",\"comm_id\":\"2a\",\"entries\":["
                      "{\"seq\":1,\"op\":\"all_reduce\",\"count\":4,\"dtype\":\"f32\",\"redop\":\"sum\",\"root\":-1,\"state\":\"completed\"}]}");
        analyse(d, 2, s, sizeof s);
        CHECKF(s[0] == '\0', "got: %s", s);
    }
    /* Several comms per rank (mgpu_comm_flight_dump_all_json's array): the
     * divergence on the sub-communicator is named with it. */
    {
        char *d[2];
        for (int r = 0; r < 2; r++) {
            char *w = mk(&(spec){r, 2, 2, 1, {"all_reduce"}, {4}, .root = -1});
            char *t = mk(&(spec){r, 2, 1, 1, {r ? "all_gather" : "all_reduce"}, {4}, .root = -1, .comm = "tp0",
                                 .id = "0000000000000099"});
            size_t n = strlen(w) + strlen(t) + 8;
            d[r] = malloc(n);
            snprintf(d[r], n, "[%s,%s]", w, t);
            free(w);
            free(t);
        }
        analyse(d, 2, s, sizeof s);
        CHECKF(strcmp(s, "on comm tp0: rank 0 entered all_reduce #1 with 4 f32; rank 1 entered all_gather #1 with 4 "
                         "f32") == 0, "got: %s", s);
    }
    /* Bad input: a clear error, never a crash. */
    {
        const char *bad[] = {"{not json", "[1,2]", "{\"rank\":5,\"size\":2,\"comm_id\":\"1\",\"entries\":[]}",
                             "{\"rank\":0,\"size\":1,\"comm_id\":\"1\",\"entries\":[{\"seq\":1,\"op\":\"nope\",\"count\":1}]}",
                             "\"text\""};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            const char *one[1] = {bad[i]};
            mgpu_result r = mgpu_flight_analyse(one, 1, s, sizeof s);
            CHECKF(r == MGPU_ERR_PARSE, "case %zu: %d", i, (int)r);
            printf("  bad %zu: %s\n", i, mgpu_error_message());
        }
        CHECK(mgpu_flight_analyse(NULL, 1, s, sizeof s) == MGPU_ERR_INVALID);
        CHECK(mgpu_flight_analyse(bad, 1, NULL, 0) == MGPU_ERR_INVALID);
    }
    /* A tiny output buffer truncates, never overflows. */
    {
        char *d[2];
        d[0] = mk(&(spec){0, 2, 1, 1, {"all_reduce"}, {4}, .root = -1});
        d[1] = mk(&(spec){1, 2, 1, 1, {"broadcast"}, {4}, .root = 0});
        char small[12];
        CHECK_OK(mgpu_flight_analyse((const char *const *)d, 2, small, sizeof small));
        CHECK(strlen(small) == sizeof small - 1);
        free(d[0]);
        free(d[1]);
    }
    return tap_done();
}
