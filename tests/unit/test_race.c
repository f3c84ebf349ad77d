/* test_race.c - the stream-ordering race detector (mgpu/race.h) on one rank
 * of the sim, through the rank API as a script uses it: ordered and
 * unordered pairs for events, stream waits, host synchronizes and queries,
 * collectives on the comm stream, host reads, views over one buffer, the
 * training ops; write-after-read and write-after-write; one report per
 * fault (an in-place collective, a loop); the sim's poison and that the
 * data comes back; names and lines in the sentence; off means off. */
#include "mgpu/lua_mgpu.h"
#include "mgpu/race.h"
#include "tap.h"
#include <string.h>

static mgpu_backend *be;
static mgpu_lua *sb;
static mgpu_comm *world_comm;
static int told;
static char last[1024];

static mgpu_result one_rank_allgather(void *ctx, const void *mine, void *all, size_t len)
{
    (void)ctx;
    memcpy(all, mine, len);
    return MGPU_OK;
}

static mgpu_result make_world(void *ctx, mgpu_comm **out)
{
    (void)ctx;
    if (!world_comm) {
        static mgpu_bootstrap bs = {.rank = 0, .size = 1, .allgather = one_rank_allgather};
        mgpu_comm_config cfg = {.device = 0, .blocking = 1, .timeout_s = 10, .name = "world"};
        MGPU_CHECK(mgpu_comm_init(be, &bs, &cfg, &world_comm));
    }
    *out = world_comm;
    return MGPU_OK;
}

static void on_race(void *ctx, const mgpu_race_report *r)
{
    (void)ctx;
    told++;
    snprintf(last, sizeof last, "%s", r->text);
}

/* A fresh detector (a new run), then the script; returns the distinct races. */
static int run(const char *code)
{
    mgpu_race_enable(be, MGPU_RACE_ON | MGPU_RACE_SHOW);
    mgpu_race_set_report_fn(be, on_race, NULL);
    told = 0;
    last[0] = '\0';
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@t.lua", 0);
    CHECKF(r == MGPU_OK, "%s\n-> %s", code, mgpu_lua_error_message(sb));
    int n = 0;
    mgpu_race_reports(be, &n);
    CHECKF(n == told, "%d reports kept, %d told", n, told);
    return n;
}

static void no_race(const char *code)
{
    int n = run(code);
    CHECKF(n == 0, "%s\n-> %d races, the first: %s", code, n, last);
}

/* One race whose sentence holds every piece of `want` (NULL-terminated). */
static void one_race(const char *code, const char *const *want)
{
    int n = run(code);
    CHECKF(n == 1, "%s\n-> %d races (want 1): %s", code, n, last);
    for (int i = 0; want[i]; i++) CHECKF(strstr(last, want[i]) != NULL, "'%s' lacks '%s'", last, want[i]);
}

#define WANT(...) ((const char *const[]){__VA_ARGS__, NULL})

static const char prelude[] = "local x = mgpu.tensor{count = 1024, name = 'x'}\n"
                              "local y = mgpu.tensor(1024)\n"
                              "local s = mgpu.stream()\n";

static char code[4096];
static const char *with_prelude(const char *body)
{
    snprintf(code, sizeof code, "%s%s", prelude, body);
    return code;
}

static void test_events_and_waits(void)
{
    /* a copy on the default stream reading what another stream wrote */
    one_race(with_prelude("x:fill{value = 1, stream = s}\n"
                          "mgpu.copy(y, x)\n"),
             WANT("read of x[0:1024] on the default stream (copy) at t.lua:5",
                  "not ordered after the write on stream", "(fill) at t.lua:4", "record an event on stream",
                  "make the default stream wait on it", "the sim showed it"));
    no_race(with_prelude("x:fill{value = 1, stream = s}\n"
                         "local e = mgpu.event(); e:record(s); mgpu.default_stream():wait(e)\n"
                         "mgpu.copy(y, x)\n"));
    no_race(with_prelude("x:fill{value = 1, stream = s}\n"
                         "local e = mgpu.event(); e:record(s); e:wait()\n"
                         "mgpu.copy(y, x)\n"));
    /* an event recorded before the write orders nothing of it */
    one_race(with_prelude("local e = mgpu.event(); e:record(s)\n"
                          "x:fill{value = 1, stream = s}\n"
                          "mgpu.default_stream():wait(e)\n"
                          "mgpu.copy(y, x)\n"),
             WANT("read of x", "(fill) at t.lua:5"));
    /* a wait on an event never recorded orders nothing either */
    one_race(with_prelude("x:fill{value = 1, stream = s}\n"
                          "mgpu.default_stream():wait(mgpu.event())\n"
                          "mgpu.copy(y, x)\n"),
             WANT("read of x"));
    /* ordering is transitive: s -> t -> default */
    no_race(with_prelude("local t = mgpu.stream()\n"
                         "x:fill{value = 1, stream = s}\n"
                         "local e1 = mgpu.event(); e1:record(s); t:wait(e1)\n"
                         "local e2 = mgpu.event(); e2:record(t); mgpu.default_stream():wait(e2)\n"
                         "mgpu.copy(y, x)\n"));
    /* a named stream is called by its name */
    one_race("local x, y = mgpu.tensor{count = 64, name = 'x'}, mgpu.tensor(64)\n"
             "local p = mgpu.stream{name = 'produce'}\n"
             "x:fill{value = 1, stream = p}\n"
             "mgpu.copy(y, x)\n",
             WANT("after the write on the produce stream (fill) at t.lua:3"));
    /* one stream is always in order with itself */
    no_race(with_prelude("x:fill{value = 1, stream = s}\n"
                         "mgpu.copy(y, x, {stream = s})\n"
                         "x:fill{value = 2, stream = s}\n"));
}

static void test_host(void)
{
    /* host reads go through the default stream: the note's stale data */
    one_race(with_prelude("x:fill{value = 3, stream = s}\n"
                          "local v = x:get(7)\n"
                          "assert(v ~= v, 'the racing read sees NaN on the sim, got ' .. tostring(v))\n"),
             WANT("stale data: the host read x[7:8] (t:get) at t.lua:5", "(fill) at t.lua:4"));
    static const char *const fixes[] = {
        "s:synchronize()\n",
        "local e = mgpu.event(); e:record(s); e:synchronize()\n",
        "mgpu.synchronize()\n",
        "local e = mgpu.event(); e:record(s); while not e:query() do end\n",
        "while not s:query() do end\n",
    };
    for (size_t i = 0; i < sizeof fixes / sizeof fixes[0]; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "x:fill{value = 3, stream = s}\n%s"
                 "assert(x:get(7) == 3)\n",
                 fixes[i]);
        no_race(with_prelude(body));
    }
    /* to_table, compare and checksum are host reads too */
    one_race(with_prelude("x:fill{value = 3, stream = s}\nlocal t = x:to_table(4)\n"), WANT("(t:to_table)"));
    one_race(with_prelude("x:fill{value = 3, stream = s}\nlocal n = x:compare(y)\n"), WANT("(t:compare)"));
    one_race(with_prelude("x:fill{value = 3, stream = s}\nlocal c = x:checksum()\n"), WANT("(t:checksum)"));
    /* a stream made after the host waited starts after what it waited for */
    no_race(with_prelude("x:fill{value = 3}\n"
                         "mgpu.synchronize()\n"
                         "local t = mgpu.stream()\n"
                         "mgpu.copy(y, x, {stream = t})\n"));
    /* the script's own synchronizes are listed with their lines */
    run(with_prelude("x:fill{value = 3, stream = s}\nfor i = 1, 2 do s:synchronize() end\nmgpu.synchronize()\n"));
    int n = 0;
    const mgpu_race_sync *sy = mgpu_race_syncs(be, &n);
    CHECKF(n == 2, "%d distinct synchronizes (want 2)", n);
    if (n == 2) {
        CHECKF(strcmp(sy[0].what, "stream:synchronize") == 0 && strcmp(sy[0].site, "t.lua:5") == 0 &&
                   sy[0].count == 2 && strstr(sy[0].stream, "stream") != NULL,
               "%s %s %s %lu", sy[0].what, sy[0].site, sy[0].stream, sy[0].count);
        CHECKF(strcmp(sy[1].what, "mgpu.synchronize") == 0 && strcmp(sy[1].site, "t.lua:6") == 0, "%s %s",
               sy[1].what, sy[1].site);
    }
    mgpu_race_stats st;
    mgpu_race_stats_get(be, &st);
    CHECKF(st.host_syncs == 3, "%lu host syncs", st.host_syncs);
}

static void test_kinds(void)
{
    /* write after read: the fill may land before the copy read x */
    one_race(with_prelude("mgpu.copy(y, x, {stream = s})\n"
                          "x:fill{value = 1}\n"),
             WANT("write of x[0:1024] on the default stream (fill) at t.lua:5",
                  "not ordered after the read on stream", "(copy) at t.lua:4", "the write may land before the read"));
    /* write after write */
    one_race(with_prelude("x:fill{value = 1, stream = s}\n"
                          "x:fill{value = 2}\n"),
             WANT("write of x[0:1024]", "either may land last"));
    /* reads never race reads */
    no_race(with_prelude("mgpu.copy(y, x, {stream = s})\n"
                         "local z = mgpu.tensor(1024); mgpu.copy(z, x)\n"));
}

static void test_views(void)
{
    /* disjoint halves of one buffer do not race; overlapping ones do, and
     * the report gives the overlap in elements of the whole tensor */
    no_race(with_prelude("x:flat(0, 512):fill{value = 1, stream = s}\n"
                         "mgpu.copy(y:flat(0, 512), x:flat(512, 512))\n"));
    one_race(with_prelude("x:flat(0, 512):fill{value = 1, stream = s}\n"
                          "mgpu.copy(y:flat(0, 512), x:flat(256, 512))\n"),
             WANT("read of x[256:512]"));
    /* many writes side by side on one stream, then one read of all of them */
    one_race(with_prelude("for i = 0, 7 do x:flat(i * 128, 128):fill{value = i, stream = s} end\n"
                          "mgpu.copy(y, x)\n"),
             WANT("read of x[0:1024]"));
}

static void test_slices(void)
{
    /* a pipeline: one line writes slice after slice on s, each with its
     * event; the default stream takes slice j once its event is done, while
     * s is ahead with the next ones. Slices ordered by their own events do
     * not race, whatever the same line wrote next to them later */
    no_race(with_prelude("local got = {}\n"
                         "for j = 0, 3 do x:flat(j * 256, 256):fill{value = j, stream = s}; got[j] = mgpu.event(); got[j]:record(s) end\n"
                         "for j = 0, 3 do mgpu.default_stream():wait(got[j]); mgpu.copy(y:flat(j * 256, 256), x:flat(j * 256, 256)) end\n"));
    /* ... and the one slice not waited for is named, not its neighbours */
    one_race(with_prelude("local got = {}\n"
                          "for j = 0, 3 do x:flat(j * 256, 256):fill{value = j, stream = s}; got[j] = mgpu.event(); got[j]:record(s) end\n"
                          "for j = 0, 3 do if j ~= 2 then mgpu.default_stream():wait(got[j]) end; mgpu.copy(y:flat(j * 256, 256), x:flat(j * 256, 256)) end\n"),
             WANT("read of x[512:768] on the default stream (copy) at t.lua:6", "the write on stream", "(fill) at t.lua:5"));
    /* the other way round: reads of slices, each with its event; a write
     * after the first slice's read was waited for does not race it, a write
     * to the second slice does */
    no_race(with_prelude("local done = {}\n"
                         "for j = 0, 3 do mgpu.copy(y:flat(j * 256, 256), x:flat(j * 256, 256)); done[j] = mgpu.event(); done[j]:record() end\n"
                         "s:wait(done[0]); x:flat(0, 256):fill{value = 9, stream = s}\n"));
    one_race(with_prelude("local done = {}\n"
                          "for j = 0, 3 do mgpu.copy(y:flat(j * 256, 256), x:flat(j * 256, 256)); done[j] = mgpu.event(); done[j]:record() end\n"
                          "s:wait(done[0]); x:flat(0, 512):fill{value = 9, stream = s}\n"),
             WANT("write of x[256:512] on stream", "(fill) at t.lua:6", "after the read on the default stream (copy) at t.lua:5"));
    /* a host wait between two slices of one line orders the first only */
    no_race(with_prelude("for j = 0, 1 do x:flat(j * 512, 512):fill{value = j, stream = s}; if j == 0 then s:synchronize() end end\n"
                         "assert(x:get(0) == 0)\n"));
    one_race(with_prelude("for j = 0, 1 do x:flat(j * 512, 512):fill{value = j, stream = s}; if j == 0 then s:synchronize() end end\n"
                          "local v = x:get(600)\n"),
             WANT("stale data: the host read x[600:601] (t:get) at t.lua:5", "(fill) at t.lua:4"));
    /* slices kept apart are named together when one access races them all:
     * one report over the range they cover, once */
    one_race(with_prelude("for j = 0, 7 do x:flat(j * 128, 128):fill{value = j, stream = s}; mgpu.event():record(s) end\n"
                          "mgpu.copy(y, x)\n"),
             WANT("read of x[0:1024] on the default stream (copy) at t.lua:5"));
    int n = 0;
    const mgpu_race_report *rep = mgpu_race_reports(be, &n);
    CHECKF(n == 1 && rep[0].count == 1, "%d reports, seen %lu times", n, n ? rep[0].count : 0);
    one_race(with_prelude("local e = {}\n"
                          "for j = 0, 7 do x:flat(j * 128, 128):fill{value = j, stream = s}; e[j] = mgpu.event(); e[j]:record(s) end\n"
                          "mgpu.default_stream():wait(e[3]); mgpu.copy(y, x)\n"),
             WANT("read of x[512:1024] on the default stream (copy) at t.lua:6"));
    /* an in-place collective over eight such slices: still one report (its
     * write over the bytes its read raced is the same fault) */
    CHECK(run("local c = mgpu.comm()\n"
              "local b = mgpu.tensor{count = 1024, name = 'b'}\n"
              "for j = 0, 7 do b:flat(j * 128, 128):fill{value = j}; mgpu.event():record() end\n"
              "c:all_reduce(b, 'sum', c:stream())\n") == 1);
    CHECKF(strstr(last, "read of b[0:1024] on the comm stream (all_reduce) at t.lua:4") != NULL, "%s", last);
    /* slices kept apart are many: 200 of them, each with its event, and
     * the first one still races a read that waited for none */
    one_race(with_prelude("for j = 0, 199 do x:flat(j * 4, 4):fill{value = j, stream = s}; mgpu.event():record(s) end\n"
                          "mgpu.copy(y:flat(0, 4), x:flat(0, 4))\n"),
             WANT("read of x[0:4] on the default stream (copy) at t.lua:5"));
    mgpu_race_stats stats;
    mgpu_race_stats_get(be, &stats);
    CHECKF(stats.forgotten == 0, "%lu records forgotten", stats.forgotten);
    /* what the host waited for can race nothing: a slice at a time with a
     * host wait between (a data loader) leaves no list to cut short, and
     * the next unordered write is still caught */
    one_race(with_prelude("for j = 0, 999 do x:flat(j, 1):fill{value = j, stream = s}; s:synchronize() end\n"
                          "assert(x:get(999) == 999)\n"
                          "x:flat(0, 1):fill{value = 5, stream = s}\n"
                          "local v = x:get(0)\n"),
             WANT("stale data: the host read x[0:1] (t:get) at t.lua:7", "(fill) at t.lua:6"));
    mgpu_race_stats_get(be, &stats);
    CHECKF(stats.forgotten == 0, "%lu records forgotten", stats.forgotten);
    /* the ring all-reduce's pattern on the comm stream, to itself (one
     * rank): slice j+1's receive is queued while the default stream adds
     * slice j, each add after its slice's receive, each receive into a
     * scratch slice after the add that read it last */
    static const char ring[] =
        "local c = mgpu.comm()\n"
        "local cs, ds = c:stream(), mgpu.default_stream()\n"
        "local buf = mgpu.tensor{count = 1024, name = 'buf'}:fill(1)\n"
        "local scratch = mgpu.tensor{count = 512, name = 'scratch'}\n"
        "local e = mgpu.event(); e:record(ds); cs:wait(e)\n"
        "local added, got = {}, {}\n"
        "for step = 0, 1 do\n"
        "  for j = 0, 3 do\n"
        "    if added[j] then cs:wait(added[j]) end\n"
        "    mgpu.group(function() c:send(buf:flat(j * 128, 128), 0, cs); c:recv(scratch:flat(j * 128, 128), 0, cs) end)\n"
        "    got[j] = mgpu.event(); got[j]:record(cs)\n"
        "  end\n"
        "  for j = 0, 3 do\n"
        "    if not (SKIP and step == 1 and j == 1) then ds:wait(got[j]) end\n"
        "    mgpu.nn.add(buf:flat(512 + j * 128, 128), scratch:flat(j * 128, 128), buf:flat(512 + j * 128, 128))\n"
        "    added[j] = mgpu.event(); added[j]:record(ds)\n"
        "  end\n"
        "end\n"
        "mgpu.synchronize()\n"
        "assert(SKIP or buf:get(512) == 3, buf:get(512))\n";
    char body[2048];
    snprintf(body, sizeof body, "local SKIP = false\n%s", ring);
    no_race(body);
    snprintf(body, sizeof body, "local SKIP = true\n%s", ring);
    one_race(body, WANT("read of scratch[128:256] on the default stream (add) at t.lua:16",
                        "after the write on the comm stream (recv) at t.lua:11"));
}

static void test_collectives(void)
{
    /* DDP's bucket: copied on the default stream, all-reduced on the comm stream */
    one_race("local c = mgpu.comm()\n"
             "local b = mgpu.tensor{count = 256, name = 'bucket'}:fill{value = 2}\n"
             "c:all_reduce(b, 'avg', c:stream())\n",
             WANT("read of bucket[0:256] on the comm stream (all_reduce) at t.lua:3",
                  "after the write on the default stream (fill) at t.lua:2"));
    no_race("local c = mgpu.comm()\n"
            "local b = mgpu.tensor(256):fill{value = 2}\n"
            "local e = mgpu.event(); e:record(); c:stream():wait(e)\n"
            "c:all_reduce(b, 'avg', c:stream())\n"
            "local d = mgpu.event(); d:record(c:stream()); mgpu.default_stream():wait(d)\n"
            "assert(b:get(0) == 2)\n");
    /* reading the result before waiting for the collective */
    one_race("local c = mgpu.comm()\n"
             "local b = mgpu.tensor(256):fill{value = 2}\n"
             "local e = mgpu.event(); e:record(); c:stream():wait(e)\n"
             "c:all_reduce(b, 'sum', c:stream())\n"
             "local v = b:get(0)\n",
             WANT("stale data: the host read", "(t:get) at t.lua:5", "on the comm stream (all_reduce) at t.lua:4"));
    /* out of place: the receive buffer is a write of the collective */
    one_race("local c = mgpu.comm()\n"
             "local a, b = mgpu.tensor(64):fill{value = 1}, mgpu.tensor(64)\n"
             "local e = mgpu.event(); e:record(); c:stream():wait(e)\n"
             "c:all_gather(a, b, c:stream())\n"
             "mgpu.copy(mgpu.tensor(64), b)\n",
             WANT("read of elements [0:64] of the 256 B tensor made at t.lua:2 on the default stream (copy) at t.lua:5",
                  "(all_gather) at t.lua:4"));
    /* ... and its send buffer a read: overwriting it too early races */
    one_race("local c = mgpu.comm()\n"
             "local a, b = mgpu.tensor(64):fill{value = 1}, mgpu.tensor(64)\n"
             "local e = mgpu.event(); e:record(); c:stream():wait(e)\n"
             "c:all_gather(a, b, c:stream())\n"
             "a:fill{value = 2}\n",
             WANT("write of elements [0:64]", "(fill) at t.lua:5", "after the read on the comm stream (all_gather)"));
    /* collectives on the default stream are ordered with everything else there */
    no_race("local c = mgpu.comm()\n"
            "local b = mgpu.tensor(256):fill{value = 2}\n"
            "c:all_reduce(b)\n"
            "assert(b:get(0) == 2)\n");
}

static void test_nn(void)
{
    /* a training op reading a weight another stream is still writing */
    one_race("local s = mgpu.stream()\n"
             "local a = mgpu.tensor{shape = {16, 16}}:fill{seed = 1}\n"
             "local w = mgpu.tensor{shape = {16, 16}, name = 'w'}\n"
             "w:fill{seed = 2, stream = s}\n"
             "local c = mgpu.tensor{shape = {16, 16}}\n"
             "mgpu.nn.gemm(a, w, c)\n",
             WANT("read of w[0:256] on the default stream (gemm) at t.lua:6", "(fill) at t.lua:4"));
}

static void test_once_and_restored(void)
{
    /* one report for a fault met in a loop, with its count: the copy reads
     * before the fill is known done (10 times), and the next fill may land
     * before the copy read (9 times) */
    CHECK(run(with_prelude("for i = 1, 10 do\n"
                           "  x:fill{value = i, stream = s}\n"
                           "  mgpu.copy(y, x)\n"
                           "end\n")) == 2);
    int n = 0;
    const mgpu_race_report *rep = mgpu_race_reports(be, &n);
    CHECKF(n == 2 && rep[0].count == 10 && strcmp(rep[0].kind, "read-after-write") == 0 && rep[1].count == 9 &&
               strcmp(rep[1].kind, "write-after-read") == 0,
           "%d reports, the first %s seen %lu times", n, n ? rep[0].kind : "", n ? rep[0].count : 0);
    /* the reader saw NaN; the data written is there once the read is over */
    run(with_prelude("x:fill{value = 5, stream = s}\n"
                     "mgpu.copy(y, x)\n"
                     "mgpu.synchronize()\n"
                     "assert(y:get(3) ~= y:get(3), 'y holds what the racing read saw: NaN')\n"
                     "assert(x:get(3) == 5, 'x holds what the fill wrote')\n"));
    /* an in-place collective that races is one report, not a read and a write */
    CHECK(run("local c = mgpu.comm()\n"
              "local b = mgpu.tensor(256):fill{value = 2}\n"
              "c:all_reduce(b, 'sum', c:stream())\n") == 1);
    /* i32 poison is not a NaN but a value no fill makes */
    run("local s = mgpu.stream()\n"
        "local i, j = mgpu.tensor(16, 'i32'), mgpu.tensor(16, 'i32')\n"
        "i:fill{value = 1, stream = s}\n"
        "mgpu.copy(j, i)\n"
        "mgpu.synchronize()\n"
        "assert(j:get(0) == 0x7fbadbad, j:get(0))\n");
}

static void test_off(void)
{
    mgpu_race_enable(be, 0);
    told = 0;
    const char *c = "local x, y, s = mgpu.tensor(64), mgpu.tensor(64), mgpu.stream()\n"
                    "x:fill{value = 1, stream = s}\n"
                    "mgpu.copy(y, x)\n"
                    "assert(y:get(0) == 1, 'off: the sim applies data at once, as before')\n";
    mgpu_result r = mgpu_lua_run(sb, c, strlen(c), "@t.lua", 0);
    CHECKF(r == MGPU_OK, "%s", mgpu_lua_error_message(sb));
    int n = 0;
    mgpu_race_reports(be, &n);
    CHECK(n == 0 && told == 0);
    /* on without the sim's poison: told, data as before */
    mgpu_race_enable(be, MGPU_RACE_ON);
    mgpu_race_set_report_fn(be, on_race, NULL);
    r = mgpu_lua_run(sb, c, strlen(c), "@t.lua", 0);
    CHECKF(r == MGPU_OK, "%s", mgpu_lua_error_message(sb));
    mgpu_race_reports(be, &n);
    CHECK(n == 1 && told == 1);
}

int main(void)
{
    mgpu_backend_config cfg = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
    CHECK_OK(mgpu_backend_open(&cfg, &be));
    if (!be) return tap_done();
    /* on before the rank API opens, as the spmd job does: names its default stream */
    mgpu_race_enable(be, MGPU_RACE_ON | MGPU_RACE_SHOW);
    mgpu_lua_config lc = {.time_limit_s = 30};
    CHECK_OK(mgpu_lua_open(&lc, &sb));
    mgpu_lua_rank_host host = {.be = be, .world = 1, .world_comm = make_world};
    CHECK_OK(mgpu_lua_open_rank_api(sb, &host, NULL, 0));
    CHECK_OK(mgpu_lua_open_comm_api(sb));
    if (!sb) return tap_done();
    test_events_and_waits();
    test_host();
    test_kinds();
    test_views();
    test_slices();
    test_collectives();
    test_nn();
    test_once_and_restored();
    test_off();
    mgpu_lua_close(sb);
    if (world_comm) mgpu_comm_destroy(world_comm);
    mgpu_backend_close(be);
    return tap_done();
}
