/* cmd_spmd.c - `mgpulab spmd FILE.lua`: run a learner's Lua script on every
 * rank (the "spmd" job, engine/jobs/spmd_job.c) and print what the ranks
 * say, each line tagged with its rank; on failure, which rank failed, why,
 * the script's traceback and the flight recorder's analysis; with --trace,
 * the ranks' timeline spans as a Chrome trace. */
#include "mgpu/log_keep.h"
#include "cmd.h"
#include "mgpu/chrome_trace.h"
#include "mgpu/jobs.h"
#include "mgpu/rt.h"
#include "mgpu/size.h"
#include "mgpu/spmd_doc.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCRIPT_BYTES (1u << 20)

static const char usage[] =
    "usage: mgpulab spmd FILE.lua [OPTIONS] [--] [ARGS...]\n"
    "\n"
    "Run FILE.lua on every rank, SPMD style: each rank runs the same script with its own\n"
    "mgpu.rank, tensors on its own device and the world communicator mgpu.comm(). What a\n"
    "rank prints (print, mgpu.log) is shown as \"[rank K] ...\", result rows (mgpu.result{...}\n"
    "or tables the script returns) as \"[rank K] result {...}\". Scripts run sandboxed: no\n"
    "files, no programs, no bytecode; a time budget and a memory cap per rank. The API is\n"
    "described in docs/spmd.md; examples are in examples/spmd/. FILE may be - (stdin).\n"
    "\n";

static const char epilog[] =
    "  ARGS                    strings for the script, in mgpu.args\n"
    "Global options that matter here: --ranks N (default 2 on sim, one per GPU on cuda),\n"
    "--launcher, --backend, --machine, --fault, --timeout (a collective that waits longer\n"
    "is aborted by the watchdog), --json, --trace FILE (record every rank's copies, fills,\n"
    "collectives, waits and mgpu.span regions per stream with device events and write them\n"
    "as a Chrome trace: open it in Perfetto or chrome://tracing; written also when a rank\n"
    "fails, to show where it stood; the first 250000 spans, later ones counted as dropped).\n"
    "\n"
    "Examples:\n"
    "  mgpulab spmd examples/spmd/allreduce.lua --backend sim --ranks 4\n"
    "  mgpulab spmd examples/spmd/mismatch.lua --backend sim --ranks 4 --timeout 3\n"
    "  mgpulab spmd examples/spmd/events.lua --backend sim --trace events.json\n"
    "\n"
    "Exit status: 0 when every rank finished its script, 1 when one failed (error, timeout,\n"
    "crash) or, with --race, when a race was found; 2 for bad options or an unreadable file.\n";

typedef struct spmd_args {
    const char *file;
    double time_limit_s;
    uint64_t mem_limit;
    const char **args;
    int nargs;
    int race;          /* 1: --race (a race fails the run), -1: --no-race, 0: on, reported */
    int emulated_gpus; /* > 0: more ranks than this host's GPUs, so emulated nodes (the banner says why) */
} spmd_args;

enum { O_TIME_LIMIT, O_MEM_LIMIT, O_RACE, O_NO_RACE };
static const mgpu_opt options[] = {
    [O_TIME_LIMIT] = {.name = "--time-limit", .kind = MGPU_OPT_SECONDS, .max = 86400,
                      .help = "the script's wall-clock budget on each rank (default:\ntwice --timeout, 120 s when that is not given, so the\nwatchdog reports a hung collective first); an endless\nloop is stopped then"},
    [O_MEM_LIMIT] = {.name = "--mem-limit", .kind = MGPU_OPT_SIZE, .min = 1u << 20, .max = 64.0 * (1ull << 30),
                     .help = "Lua memory per rank, e.g. 64M (default 256M); when given,\nalso the most host memory a rank's buffers may hold:\npinned ones, and on sim every real tensor (phantom ones\nare not memory)"},
    [O_RACE] = {.name = "--race", .conflicts = "--no-race",
                .help = "exit 1 when the race detector finds a race (it is on anyway)"},
    [O_NO_RACE] = {.name = "--no-race",
                   .help = "turn the stream-ordering race detector off\n(docs/spmd.md#races); it costs a few percent of a script\nthat launches many small ops"},
    MGPU_OPT_END,
};

static int parse_args(int argc, char **argv, spmd_args *a)
{
    a->args = calloc((size_t)argc + 1, sizeof *a->args);
    if (!a->args) return mgpu_cli_usage_error("spmd", "out of memory");
    /* a typo must not become a script argument: after FILE, options are
     * still options; the script's own go after "--" */
    mgpu_opt_args o;
    int rc = mgpu_opts_parse("spmd", options, argc, argv, MGPU_OPTS_DASH_OPERANDS, &o);
    if (rc) return rc;
    a->time_limit_s = o.v[O_TIME_LIMIT].d;
    a->mem_limit = o.v[O_MEM_LIMIT].size;
    a->race = o.v[O_RACE].count ? 1 : o.v[O_NO_RACE].count ? -1 : 0;
    if (o.noperands) a->file = o.operands[0];
    for (int i = 1; i < o.noperands; i++) a->args[a->nargs++] = o.operands[i];
    mgpu_opts_free(&o);
    if (!a->file) return mgpu_cli_usage_error("spmd", "which script? give FILE.lua");
    return 0;
}

/* Read the script; NULL with a message printed on failure. */
static char *read_script(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "mgpulab spmd: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(MAX_SCRIPT_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_SCRIPT_BYTES + 1, f) : 0;
    int err = ferror(f) ? errno : 0;
    if (f != stdin) fclose(f);
    if (!buf || err) {
        fprintf(stderr, "mgpulab spmd: cannot read %s: %s\n", path, buf ? strerror(err) : "out of memory");
        free(buf);
        return NULL;
    }
    if (n > MAX_SCRIPT_BYTES) {
        fprintf(stderr, "mgpulab spmd: %s is larger than %u KiB; a script should not be that big\n", path,
                MAX_SCRIPT_BYTES >> 10);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (memchr(buf, '\0', n)) {
        fprintf(stderr, "mgpulab spmd: %s holds NUL bytes; give a Lua source file\n", path);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/*--- Messages from the ranks ------------------------------------------------*/

typedef struct spmd_run {
    int json;
    int nranks;
    const char *script; /* the script's name as given, for the document */
    mgpu_spmd_result res; /* results, races, their summaries, the ranks' errors */
    mgpu_log_keep logs; /* --json: the first and last log lines */
    mgpu_chrome_trace *trace; /* --trace: the file the spans stream to */
    long bad_spans;     /* span messages that were not spans */
    int traced;         /* --trace was asked */
    size_t trace_spans; /* --trace: spans written, and dropped past its cap */
    long trace_dropped;
} spmd_run;

static void print_tagged(FILE *f, int rank, const char *text)
{
    /* each line of a multi-line text gets the tag */
    const char *p = text;
    do {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(f, "[rank %d] %.*s\n", rank, n, p);
        p = nl ? nl + 1 : NULL;
    } while (p && *p);
    fflush(f);
}

static void on_msg(void *ctx, const mgpu_rt_msg *m)
{
    spmd_run *r = ctx;
    if (strcmp(m->type, "log") == 0) {
        const char *text = json_string_value(json_object_get(m->body, "text"));
        if (!text) return;
        if (r->json) mgpu_log_keep_add(&r->logs, m->rank, text);
        else print_tagged(stdout, m->rank, text);
    } else if (mgpu_spmd_result_add(&r->res, m)) {
        if (r->json) return;
        if (strcmp(m->type, "result") == 0) {
            char *text = json_dumps(m->body, JSON_COMPACT | JSON_SORT_KEYS);
            printf("[rank %d] result %s\n", m->rank, text ? text : "?");
            fflush(stdout);
            free(text);
        } else if (strcmp(m->type, "race") == 0) {
            const char *text = json_string_value(json_object_get(m->body, "text"));
            fprintf(stdout, "[rank %d] RACE: %s\n", m->rank, text ? text : "?");
            fflush(stdout);
        }
    } else if (strcmp(m->type, "span") == 0) {
        if (r->trace && mgpu_chrome_trace_add(r->trace, m->rank, m->body) != MGPU_OK) r->bad_spans++;
    }
}

static const char *err_field(json_t *e, const char *k)
{
    const char *s = e ? json_string_value(json_object_get(e, k)) : NULL;
    return s ? s : "";
}

/* The failing rank's error in full; other ranks' only when they differ. */
static void print_indented(const char *text)
{
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(stderr, "  %.*s\n", n, p);
        p = nl ? nl + 1 : p + n;
    }
}

/* The failing rank's error in full (message and traceback); the other
 * ranks' messages only where they differ from it. */
static void print_failure(spmd_run *r, const mgpu_rt_report *rep)
{
    int first = rep->failed_rank;
    json_t *e = mgpu_spmd_result_error(&r->res, first);
    if (e) fprintf(stderr, "mgpulab spmd: rank %d failed: %s\n", first, err_field(e, "message"));
    else fprintf(stderr, "mgpulab spmd: FAILED: %s\n", rep->reason[0] ? rep->reason : "a rank failed");
    if (e && *err_field(e, "traceback")) print_indented(err_field(e, "traceback"));
    char same[256] = "";
    size_t used = 0;
    for (int k = 0; k < r->nranks; k++) {
        json_t *ek = mgpu_spmd_result_error(&r->res, k);
        if (k == first || !ek) continue;
        if (e && strcmp(err_field(ek, "message"), err_field(e, "message")) == 0) {
            if (used + 16 < sizeof same)
                used += (size_t)snprintf(same + used, sizeof same - used, "%s%d", used ? ", " : "", k);
        } else {
            fprintf(stderr, "rank %d: %s\n", k, err_field(ek, "message"));
        }
    }
    if (used) fprintf(stderr, "(rank%s %s failed with the same error)\n", strchr(same, ',') ? "s" : "", same);
    if (rep->analysis[0]) fprintf(stderr, "flight recorder: %s\n", rep->analysis);
}

/* --trace: write what the ranks sent, also after a failure (the spans show
 * where each rank stood). 1 when written or not asked for; a write error
 * is printed and fails the command. */
static int write_trace(const mgpu_cli_globals *g, const spmd_args *a, spmd_run *r, const mgpu_rt_report *rep)
{
    if (!r->trace) return 1;
    json_t *other = json_pack("{s:s, s:s, s:s, s:s, s:b, s:s}", "tool", "mgpulab spmd", "script", a->file, "backend",
                              mgpu_backend_kind_name(g->backend.kind), "machine",
                              g->backend.machine ? g->backend.machine : "", "ok", rep->ok, "time_base",
                              "per rank: microseconds from an event on the rank's default stream when its "
                              "script started (modelled time on sim)");
    if (other && r->bad_spans) json_object_set_new(other, "malformed_spans", json_integer(r->bad_spans));
    r->trace_spans = mgpu_chrome_trace_count(r->trace);
    r->trace_dropped = mgpu_chrome_trace_dropped(r->trace);
    long max = mgpu_chrome_trace_max_spans(r->trace);
    mgpu_result res = mgpu_chrome_trace_close(r->trace, other); /* frees it */
    r->trace = NULL;
    json_decref(other);
    if (res != MGPU_OK) {
        fprintf(stderr, "mgpulab spmd: %s\n", mgpu_error_message());
        return 0;
    }
    /* said on stderr, also with --json (whose document has the count) */
    if (r->trace_dropped)
        fprintf(stderr, "mgpulab spmd: --trace kept the first %ld spans; %ld later ones were dropped (the file's "
                        "otherData says so too)\n", max, r->trace_dropped);
    if (!rep->ok && !r->json) fprintf(stderr, "mgpulab spmd: trace of the failed run written to %s\n", g->trace);
    return 1;
}

/*--- The command --------------------------------------------------------------*/

/* Parse: the arguments, the run's configuration and the job's params (the
 * script as text). 0, or the exit status of a usage or input error. */
static int parse(const mgpu_cli_globals *g, int argc, char **argv, spmd_args *a, mgpu_rt_config *cfg, int *sim,
                 json_t **params)
{
    int rc = parse_args(argc, argv, a);
    if (rc) return rc;
    size_t len = 0;
    char *script = read_script(a->file, &len);
    if (!script) return 2;
    *cfg = (mgpu_rt_config){.jobs = mgpu_jobs, .backend = g->backend, .ranks = g->ranks, .timeout_s = g->timeout_s};
    if (mgpu_launcher_parse(g->launcher ? g->launcher : "local", &cfg->launcher) != MGPU_OK) {
        free(script);
        return mgpu_cli_error("spmd");
    }
    /* On sim a learner's first run should be small and readable; on cuda
     * the runtime's default is one rank per GPU. The coordinator never
     * opens cuda itself; "auto" counts as sim where the workers will
     * fall back to it. */
    *sim = mgpu_backend_config_is_sim(&g->backend);
    if (cfg->ranks == 0 && *sim) cfg->ranks = 2;
    /* More ranks than this host's GPUs cannot each be a local NCCL rank:
     * NCCL refuses two ranks of one node on one GPU ("Duplicate GPU
     * detected"). Emulated nodes can (each rank its own NCCL_HOSTID, NCCL
     * over sockets): the local launcher (the default, which main.c fills
     * in) takes them, as the labs do, and the banner says why. */
    int gpus = *sim ? 0 : mgpu_driver_gpu_count();
    if (gpus > 0 && cfg->ranks > gpus && cfg->launcher == MGPU_LAUNCH_LOCAL) {
        cfg->launcher = MGPU_LAUNCH_EMULATE;
        a->emulated_gpus = gpus;
    }

    char chunk[4096 + 2];
    snprintf(chunk, sizeof chunk, "@%s", strcmp(a->file, "-") == 0 ? "stdin" : a->file);
    json_t *jargs = json_array();
    for (int i = 0; i < a->nargs; i++) json_array_append_new(jargs, json_string(a->args[i]));
    mgpu_spmd_params p = {.script = script, .len = len, .chunkname = chunk, .args = jargs,
                          .time_limit_s = a->time_limit_s, .mem_limit = a->mem_limit, .spans = g->trace != NULL,
                          .race_off = a->race < 0};
    *params = mgpu_spmd_params_json(&p);
    json_decref(jargs);
    free(script);
    if (!*params) {
        fprintf(stderr, "mgpulab spmd: %s is not valid UTF-8 text\n", a->file);
        return 2;
    }
    return 0;
}

static void print_banner(const mgpu_cli_globals *g, const spmd_args *a, const mgpu_rt_config *cfg, int sim)
{
    char who[64];
    if (cfg->ranks) snprintf(who, sizeof who, "%d rank%s", cfg->ranks, cfg->ranks == 1 ? "" : "s");
    else snprintf(who, sizeof who, "one rank per GPU");
    printf("# mgpulab spmd %s: %s, backend %s, launcher %s\n", a->file, who, mgpu_backend_kind_name(g->backend.kind),
           a->emulated_gpus ? "emulate" : g->launcher ? g->launcher : "local");
    if (a->emulated_gpus)
        printf("# %d ranks on %d GPU%s: emulated nodes (each rank its own NCCL_HOSTID, NCCL over sockets - slower "
               "than the GPUs' own links); NCCL does not let two ranks of one node share a GPU\n",
               cfg->ranks, a->emulated_gpus, a->emulated_gpus == 1 ? "" : "s");
    if (sim) printf("# SIMULATED machine %s\n", g->backend.machine ? g->backend.machine : "dgx-h100");
    fflush(stdout);
}

/* Report a run that happened: the --json document, or the verdict. */
static void report(const mgpu_cli_globals *g, spmd_run *r, const mgpu_rt_report *rep, int trace_ok)
{
    if (r->json) {
        json_t *logs = mgpu_log_keep_json(&r->logs);
        json_t *doc = mgpu_spmd_result_doc(&r->res, r->script, logs, r->nranks, rep);
        json_decref(logs);
        if (r->traced)
            json_object_set_new(doc, "trace", json_pack("{s:s, s:I, s:I, s:b}", "file", g->trace, "spans",
                                                         (json_int_t)r->trace_spans, "dropped",
                                                         (json_int_t)r->trace_dropped, "written", trace_ok));
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("\n");
        json_decref(doc);
    } else if (rep->ok) {
        if (r->traced && trace_ok)
            printf("# trace: %s (%zu spans%s; open it in Perfetto)\n", g->trace, r->trace_spans,
                   r->trace_dropped ? ", the first of more" : "");
        long distinct = (long)json_array_size(r->res.races);
        if (r->res.racing)
            printf("# race detector: %ld racing access%s, %ld distinct race%s (each shown above once)\n",
                   r->res.racing, r->res.racing == 1 ? "" : "es", distinct, distinct == 1 ? "" : "s");
        printf("# every rank finished (%.2f s)\n", rep->wall_s);
    } else {
        fflush(stdout);
        print_failure(r, rep);
    }
}

static void spmd_run_free(spmd_run *r)
{
    mgpu_spmd_result_free(&r->res);
    mgpu_log_keep_free(&r->logs);
    mgpu_chrome_trace_free(r->trace);
}

/* parse -> execute -> report, one cleanup path. */
static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    spmd_args a = {0};
    spmd_run r = {.json = g->json};
    mgpu_rt_config cfg;
    json_t *params = NULL;
    int sim = 0;
    int rc = parse(g, argc, argv, &a, &cfg, &sim, &params);
    if (rc) goto out;

    /* refused before the banner: "1024 ranks" was printed just above the
     * refusal of that many */
    if (mgpu_rt_check_config(&cfg, "spmd") != MGPU_OK) {
        rc = mgpu_cli_error("spmd");
        goto out;
    }
    r.nranks = cfg.ranks > 0 ? cfg.ranks : 4096;
    r.script = a.file;
    mgpu_spmd_result_init(&r.res);
    /* the trace streams to its file as spans arrive (kept in memory whole,
     * 600k spans took 2.2 GB, issue 34): an unwritable file fails now,
     * before the run */
    if (g->trace && mgpu_chrome_trace_open(g->trace, 0, &r.trace) != MGPU_OK) {
        rc = mgpu_cli_error("spmd");
        goto out;
    }
    r.traced = g->trace != NULL;
    if (r.json) mgpu_log_keep_init(&r.logs);
    else print_banner(g, &a, &cfg, sim);
    mgpu_rt_report rep;
    memset(&rep, 0, sizeof rep);
    mgpu_result res = mgpu_rt_run(&cfg, "spmd", params, on_msg, &r, &rep);
    if (res != MGPU_OK) {
        rc = mgpu_cli_error("spmd");
        goto out;
    }
    int trace_ok = write_trace(g, &a, &r, &rep);
    report(g, &r, &rep, trace_ok);
    rc = rep.ok && trace_ok && !(a.race > 0 && json_array_size(r.res.races) > 0) ? 0 : 1;
out:
    json_decref(params);
    free(a.args);
    spmd_run_free(&r);
    return rc;
}

const mgpu_cmd mgpu_cmd_spmd = {
    .name = "spmd",
    .summary = "run an SPMD Lua script on N ranks",
    .usage = usage,
    .options = options,
    .epilog = epilog,
    .run = run,
};
