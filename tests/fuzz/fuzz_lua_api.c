/* fuzz_lua_api.c - a fuzzer for the rank API a script sees (mgpu.*):
 * random sequences of calls, frees, destroys, options whose __index frees or
 * destroys in the middle of a call, groups, to-be-closed values and
 * coroutines, on one rank of the sim backend in this process. Built for the
 * ASan+UBSan pass, where a memory error aborts on the spot.
 *
 * A program is lines run("action", a, b, c, d) over the pools and actions of
 * lua_api_prelude.lua. Seeds are the programs in the directories given on
 * the command line (tests/fuzz/corpus_lua); each round takes one, mutates
 * its lines (drop, duplicate, splice with another, new lines, new numbers)
 * or writes a new one, and runs it in a fresh sandbox with a fresh world
 * communicator. A program whose outcomes (SEEN: "fill:ok", "copy:this
 * tensor was freed") include one never seen joins the seeds; with
 * MGPU_FUZZ_SAVE_DIR it is also written there, to grow the corpus.
 *
 * After each program the device and host memory its tensors held must be
 * back where it was (a pin that was never let go keeps a tensor's memory).
 * Time budget: MGPU_FUZZ_SECONDS (default 20; 0 = seeds only); seed:
 * MGPU_FUZZ_SEED. A failing program is saved as fuzz_lua_api_crash.lua
 * before the process aborts. MGPU_FUZZ_MERGE=DIR runs every seed and writes
 * to DIR the regress-*.lua programs and, greedily, the programs that show
 * the most outcomes not shown yet, at most MGPU_FUZZ_MERGE_MAX (64): the
 * corpus, small. */
#include "mgpu/lua_mgpu.h"
#include "mgpu/mem.h"
#include "mgpu/race.h"
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINES 160
#define MAX_SEEDS 4096
#define LINE_LEN 96

typedef struct prog {
    int n;
    int keep;             /* a regression program (regress-*.lua): merges keep it */
    char line[MAX_LINES][LINE_LEN];
} prog;

static prog *seeds[MAX_SEEDS];
static int nseeds;
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static char *prelude;
static size_t prelude_len;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return rng_state = x;
}
static int below(int n) { return n > 0 ? (int)(rnd() % (uint64_t)n) : 0; }

/*--- Programs ---------------------------------------------------------------*/

/* The actions of lua_api_prelude.lua, weighted by how often a line names
 * them (the ones that free and destroy come often). */
static const struct { const char *name; int weight; } actions[] = {
    {"tensor", 10}, {"view", 6},   {"free", 5},    {"drop", 3},     {"gc", 2},      {"evil", 3},    {"fill", 8},
    {"fillnum", 2}, {"get", 3},    {"set", 2},     {"read", 4},     {"name", 1},    {"copy", 8},    {"stream", 4},
    {"sdestroy", 3}, {"ssync", 2}, {"event", 2},   {"erecord", 2},  {"ewait", 2},   {"esync", 2},   {"edestroy", 1},
    {"world", 3},   {"split", 3},  {"cdestroy", 3}, {"cstream", 3}, {"cinfo", 1},   {"coll", 8},    {"group", 6},
    {"nn", 8},      {"gemm_ok", 2}, {"close", 3},  {"co", 3},       {"span", 2},    {"mem", 2},     {"ipc", 2},
    {"share", 1},   {"result", 1}, {"whatif", 1},
};
#define NACTIONS ((int)(sizeof actions / sizeof actions[0]))

static int small(void)
{
    int k = below(10);
    return k < 6 ? below(8) : k < 9 ? below(64) : below(100000);
}

static void new_line(char *out)
{
    int total = 0;
    for (int i = 0; i < NACTIONS; i++) total += actions[i].weight;
    int pick = below(total), i = 0;
    while (pick >= actions[i].weight) pick -= actions[i++].weight;
    snprintf(out, LINE_LEN, "run(\"%s\", %d, %d, %d, %d)", actions[i].name, small(), small(), small(), small());
}

static void new_prog(prog *p)
{
    p->n = 8 + below(40);
    for (int i = 0; i < p->n; i++) new_line(p->line[i]);
}

/* A line's numbers changed (the action kept). */
static void renumber(char *l)
{
    char name[40];
    if (sscanf(l, "run(\"%39[a-z_]\"", name) != 1) return new_line(l);
    snprintf(l, LINE_LEN, "run(\"%s\", %d, %d, %d, %d)", name, small(), small(), small(), small());
}

static void mutate(prog *p)
{
    int at = below(p->n + 1);
    switch (below(6)) {
    case 0: /* drop a line */
        if (p->n > 1) {
            memmove(p->line[at % p->n], p->line[at % p->n + 1], (size_t)(p->n - at % p->n - 1) * LINE_LEN);
            p->n--;
        }
        break;
    case 1: /* duplicate a line */
        if (p->n < MAX_LINES && p->n) {
            int from = below(p->n);
            memmove(p->line[at + 1], p->line[at], (size_t)(p->n - at) * LINE_LEN);
            memcpy(p->line[at], p->line[from < at ? from : from + 1], LINE_LEN);
            p->n++;
        }
        break;
    case 2: { /* splice: my first lines, another program's last */
        const prog *o = seeds[below(nseeds)];
        int from = below(o->n);
        int k = o->n - from;
        if (at + k > MAX_LINES) k = MAX_LINES - at;
        memcpy(p->line[at], o->line[from], (size_t)k * LINE_LEN);
        p->n = at + k;
        break;
    }
    case 3: /* new numbers */
        if (p->n) renumber(p->line[below(p->n)]);
        break;
    default: /* a new line */
        if (p->n < MAX_LINES) {
            memmove(p->line[at + 1], p->line[at], (size_t)(p->n - at) * LINE_LEN);
            new_line(p->line[at]);
            p->n++;
        }
        break;
    }
    if (p->n == 0) new_prog(p);
}

static char *prog_text(const prog *p, size_t *len)
{
    size_t cap = (size_t)p->n * (LINE_LEN + 1) + 1, n = 0;
    char *s = malloc(cap);
    if (!s) abort();
    for (int i = 0; i < p->n; i++) n += (size_t)snprintf(s + n, cap - n, "%s\n", p->line[i]);
    *len = n;
    return s;
}

static void add_seed(const prog *p)
{
    if (nseeds == MAX_SEEDS) return;
    prog *c = malloc(sizeof *c);
    if (!c) return;
    *c = *p;
    seeds[nseeds++] = c;
}

static void load_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz: cannot open seed directory %s\n", dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t nl = strlen(e->d_name);
        if (e->d_name[0] == '.' || nl < 5 || strcmp(e->d_name + nl - 4, ".lua") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        prog p = {0};
        p.keep = strncmp(e->d_name, "regress-", 8) == 0;
        char l[512];
        while (p.n < MAX_LINES && fgets(l, sizeof l, f)) {
            l[strcspn(l, "\r\n")] = '\0';
            size_t ll = strlen(l);
            if (strncmp(l, "run(", 4) == 0 && ll < LINE_LEN) memcpy(p.line[p.n++], l, ll + 1);
        }
        fclose(f);
        if (p.n) add_seed(&p);
    }
    closedir(d);
}

/*--- Outcomes seen ------------------------------------------------------------*/

#define SEEN_SLOTS (1 << 16)
static uint64_t seen[SEEN_SLOTS];
static int nseen;

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h | 1;
}

/* The outcomes of the program running now, when a merge asks for them. */
static uint64_t *shown;
static int nshown, capshown;

/* 1 when key was not seen before (and remembers it). */
static int see(const char *key)
{
    uint64_t h = hash(key);
    if (shown && nshown < capshown) shown[nshown++] = h;
    for (size_t i = h % SEEN_SLOTS, k = 0; k < SEEN_SLOTS; i = (i + 1) % SEEN_SLOTS, k++) {
        if (seen[i] == h) return 0;
        if (!seen[i]) {
            if (nseen > SEEN_SLOTS * 3 / 4) return 0;
            seen[i] = h;
            nseen++;
            return 1;
        }
    }
    return 0;
}

/*--- Running one ------------------------------------------------------------*/

static mgpu_backend *be;
static mgpu_comm *world;
static long races, lines_out;
static const prog *current;

static mgpu_result one_rank_allgather(void *ctx, const void *mine, void *all, size_t len)
{
    (void)ctx;
    memcpy(all, mine, len);
    return MGPU_OK;
}

static mgpu_result make_world(void *ctx, mgpu_comm **out)
{
    (void)ctx;
    if (!world) {
        static mgpu_bootstrap bs = {.rank = 0, .size = 1, .allgather = one_rank_allgather};
        /* a receive nobody sends to waits this long, not a minute */
        mgpu_comm_config cfg = {.device = 0, .blocking = 1, .timeout_s = 2, .name = "world"};
        MGPU_CHECK(mgpu_comm_init(be, &bs, &cfg, &world));
    }
    *out = world;
    return MGPU_OK;
}

static void on_print(void *ctx, const char *s, size_t n)
{
    (void)ctx, (void)s, (void)n;
    lines_out++;
}
static mgpu_result on_result(void *ctx, json_t *row) { (void)ctx, (void)row; return MGPU_OK; }
static void on_span(void *ctx, const mgpu_span *s) { (void)ctx, (void)s; }
static void on_race(void *ctx, const mgpu_race_report *r) { (void)ctx, (void)r; races++; }

/* Device bytes allocated on every device, and host bytes held. */
static void memory_now(uint64_t *dev, uint64_t *host)
{
    int n = 0;
    mgpu_device_count(be, &n);
    *dev = 0;
    for (int d = 0; d < n; d++) {
        mgpu_memory_stats st;
        if (mgpu_memory_stats_get(be, d, &st) == MGPU_OK) *dev += (uint64_t)st.allocated_bytes.current;
    }
    *host = mgpu_backend_host_memory_used(be);
}

static void save(const prog *p, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    for (int i = 0; i < p->n; i++) fprintf(f, "%s\n", p->line[i]);
    fclose(f);
}

static void die(const char *why)
{
    fprintf(stderr, "fuzz: %s\n", why);
    if (current) save(current, "fuzz_lua_api_crash.lua");
    fprintf(stderr, "fuzz: the program is saved as fuzz_lua_api_crash.lua\n");
    abort();
}

/* Run p; returns how many outcomes it showed that no program had shown. */
static int run_prog(const prog *p)
{
    current = p;
    uint64_t dev0, host0;
    memory_now(&dev0, &host0);
    mgpu_memory_configure(be, "expandable_segments:False"); /* a program may have switched it */
    mgpu_lua_config lc = {.time_limit_s = 10, .mem_limit = 64u << 20, .print = on_print};
    mgpu_lua *sb = NULL;
    if (mgpu_lua_open(&lc, &sb) != MGPU_OK) die("cannot open a sandbox");
    mgpu_lua_rank_host host = {.be = be, .world = 1, .world_comm = make_world, .log = on_print, .result = on_result};
    if (mgpu_lua_open_rank_api(sb, &host, NULL, 0) != MGPU_OK || mgpu_lua_open_comm_api(sb) != MGPU_OK ||
        mgpu_lua_enable_spans(sb, on_span, NULL) != MGPU_OK)
        die(mgpu_error_message());
    if (mgpu_lua_run(sb, prelude, prelude_len, "@lua_api_prelude.lua", 0) != MGPU_OK) die(mgpu_lua_error_message(sb));
    size_t len;
    char *text = prog_text(p, &len);
    (void)mgpu_lua_run(sb, text, len, "@fuzz.lua", 0); /* a program may end early (the time budget, memory) */
    free(text);
    int fresh = 0;
    lua_State *L = mgpu_lua_state(sb);
    if (lua_getglobal(L, "SEEN") == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pop(L, 1);
            if (lua_type(L, -1) == LUA_TSTRING) fresh += see(lua_tostring(L, -1));
        }
    }
    lua_pop(L, 1);
    mgpu_lua_close(sb);
    if (world) {
        (void)mgpu_comm_destroy(world); /* a program may have left it aborted */
        world = NULL;
    }
    mgpu_error_clear();
    uint64_t dev1, host1;
    memory_now(&dev1, &host1);
    if (dev1 != dev0 || host1 != host0) {
        char why[200];
        snprintf(why, sizeof why, "the program's state is closed but %lld device and %lld host bytes it held are not "
                                  "back (a pin never let go?)", (long long)(dev1 - dev0), (long long)(host1 - host0));
        die(why);
    }
    current = NULL;
    return fresh;
}

/*--- Merging -----------------------------------------------------------------*/

typedef struct outcomes {
    uint64_t *h;
    int n;
} outcomes;

static int covered(const uint64_t *done, int ndone, uint64_t h)
{
    for (int i = 0; i < ndone; i++)
        if (done[i] == h) return 1;
    return 0;
}

static int merge_corpus(const char *dir)
{
    const char *m = getenv("MGPU_FUZZ_MERGE_MAX");
    int max = m ? atoi(m) : 64;
    outcomes *o = calloc((size_t)nseeds, sizeof *o);
    uint64_t *done = malloc(sizeof *done * SEEN_SLOTS);
    if (!o || !done) return 1;
    for (int i = 0; i < nseeds; i++) {
        /* every outcome of the program, not only those new to the run */
        capshown = 4096;
        shown = malloc(sizeof *shown * (size_t)capshown);
        nshown = 0;
        memset(seen, 0, sizeof seen);
        nseen = 0;
        run_prog(seeds[i]);
        o[i].h = shown;
        o[i].n = nshown;
        shown = NULL;
    }
    int ndone = 0, nout = 0;
    for (int round = 0;; round++) {
        int best = -1, gain = 0;
        for (int i = 0; i < nseeds; i++) {
            if (!o[i].h) continue;
            int g = 0;
            for (int k = 0; k < o[i].n; k++) g += !covered(done, ndone, o[i].h[k]);
            if (seeds[i]->keep) g = SEEN_SLOTS; /* first, whatever they add */
            if (g > gain || (g == gain && g && seeds[i]->n < seeds[best]->n)) best = i, gain = g;
        }
        if (best < 0 || gain == 0 || (nout >= max && !seeds[best]->keep)) break;
        for (int k = 0; k < o[best].n; k++)
            if (!covered(done, ndone, o[best].h[k])) done[ndone++] = o[best].h[k];
        char path[4096];
        snprintf(path, sizeof path, seeds[best]->keep ? "%s/regress-%03d.lua" : "%s/seed-%03d.lua", dir, nout++);
        save(seeds[best], path);
        free(o[best].h);
        o[best].h = NULL;
    }
    printf("fuzz.lua_api: %d of %d programs kept, showing %d outcomes\n", nout, nseeds, ndone);
    for (int i = 0; i < nseeds; i++) free(o[i].h);
    free(o);
    free(done);
    mgpu_backend_close(be);
    return 0;
}

/*--- Main -------------------------------------------------------------------*/

static void on_signal(int sig)
{
    if (current) save(current, "fuzz_lua_api_crash.lua");
    static const char msg[] = "fuzz: failing program saved as fuzz_lua_api_crash.lua\n";
    if (write(2, msg, sizeof msg - 1) < 0) {}
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ASan and UBSan report, then call this before they end the process. */
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));
static void on_sanitizer_death(void)
{
    if (current) save(current, "fuzz_lua_api_crash.lua");
    static const char msg[] = "fuzz: failing program saved as fuzz_lua_api_crash.lua\n";
    if (write(2, msg, sizeof msg - 1) < 0) {}
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *s = malloc(1 << 20);
    *len = s ? fread(s, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    const char *s = getenv("MGPU_FUZZ_SECONDS"), *sd = getenv("MGPU_FUZZ_SEED"), *out = getenv("MGPU_FUZZ_SAVE_DIR");
    double budget = s ? atof(s) : 20.0;
    if (sd) rng_state = strtoull(sd, NULL, 0) | 1;
    prelude = read_file(MGPU_FUZZ_LUA_PRELUDE, &prelude_len);
    if (!prelude) {
        fprintf(stderr, "fuzz: cannot read %s\n", MGPU_FUZZ_LUA_PRELUDE);
        return 1;
    }
    for (int i = 1; i < argc; i++) load_dir(argv[i]);
    if (!nseeds) {
        prog p;
        new_prog(&p);
        add_seed(&p);
    }
    mgpu_backend_config cfg = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
    if (mgpu_backend_open(&cfg, &be) != MGPU_OK) {
        fprintf(stderr, "fuzz: %s\n", mgpu_error_message());
        return 1;
    }
    mgpu_race_enable(be, MGPU_RACE_ON | MGPU_RACE_SHOW);
    mgpu_race_set_report_fn(be, on_race, NULL);
    signal(SIGABRT, on_signal);
    signal(SIGSEGV, on_signal);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_sanitizer_death);

    const char *merge = getenv("MGPU_FUZZ_MERGE");
    if (merge) return merge_corpus(merge);
    long execs = 0, kept = 0;
    int first = nseeds;
    for (int i = 0; i < first; i++, execs++) run_prog(seeds[i]);
    double t0 = now(), t = t0;
    prog *p = malloc(sizeof *p);
    if (!p) return 1;
    while (t - t0 < budget) {
        if (below(8) == 0) new_prog(p);
        else {
            *p = *seeds[below(nseeds)];
            for (int m = 1 + below(4); m > 0; m--) mutate(p);
        }
        if (run_prog(p) > 0) {
            add_seed(p);
            kept++;
            if (out) {
                char path[4096];
                snprintf(path, sizeof path, "%s/found-%08lx.lua", out, (unsigned long)(rnd() & 0xffffffffu));
                save(p, path);
            }
        }
        execs++;
        t = now();
    }
    free(p);
    printf("fuzz.lua_api: %ld programs in %.1f s from %d seeds: %d outcomes seen, %ld programs kept for new ones, "
           "%ld races reported, 0 crashes\n", execs, now() - t0, first, nseen, kept, races);
    mgpu_backend_close(be);
    for (int i = 0; i < nseeds; i++) free(seeds[i]);
    free(prelude);
    return 0;
}
