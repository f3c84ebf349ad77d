/* cmd_validate.c - `mgpulab validate`: does this machine perform as it
 * should, and if not, why? Every device step runs on rank workers (the
 * coordinator never opens CUDA):
 *   1. the "topo" job with facts: the topology, peer access, NVML facts;
 *   2. the "copy" job: host<->device, local and peer copies, measured;
 *      the same job on the sim of the discovered topology (its NCCL XML
 *      replayed, GPU model included) gives the expected figures;
 *   3. the "bench" job: all_reduce and all_gather latency and bandwidth,
 *      each against the collective model of that same topology;
 *   4. the "validate_ranks" job: per-rank times that name a straggler.
 * validate_*.c judge and print (validate.h). */
#include "mgpu/file.h"
#include "cmd.h"
#include "validate.h"
#include "mgpu/facts.h"
#include "mgpu/coll_doc.h"
#include "mgpu/jobs.h"
#include "mgpu/rt.h"
#include "mgpu/size.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: mgpulab validate [--expect PRESET|FILE.xml] [--quick] [--sweep] [--sustained DURATION]\n"
    "                        [--format text|markdown|json|junit] [--markdown FILE] [--junit FILE]\n"
    "                        [--tolerance PERCENT]\n"
    "\n"
    "Checks that this machine performs as it should and says why where it does not.\n"
    "Topology: GPU count, NVLinks missing or degraded, PCIe links below their maximum\n"
    "generation or width, NUMA and NIC affinity, GPUDirect RDMA, peer access. NVML facts:\n"
    "per-link NVLink state and speed, PCIe current vs maximum and replay counters, ECC\n"
    "(volatile and aggregate), retired and remapped pages, clocks and their slowdown\n"
    "reasons, power, temperature (\"not reported\" where NVML gives nothing). Measurements:\n"
    "copy bandwidth per link class (host<->device, local, GPU<->GPU), all_reduce and\n"
    "all_gather bus bandwidth and small-message latency on every GPU of every node,\n"
    "inter-node bandwidth per NIC pair, per-rank times (a straggler is named). Each\n"
    "measurement is compared with what the model predicts for this exact topology (the\n"
    "discovered NCCL topology replayed, GPU model included), within the model's own\n"
    "uncertainty for what bounds it (printed after each expectation). Anomalies are\n"
    "grouped into findings, one likely cause each, the one that explains most first.\n"
    "\n"
    "It measures a real machine: under --backend auto (the default) with no usable GPU it\n"
    "refuses (exit 3) and says why (no driver, no device, a driver too old for this\n"
    "build). --backend sim --machine PRESET [--fault F] runs it on a SIMULATED machine\n"
    "for practice, and every output says so.\n"
    "\n";

static const char epilog[] =
    "\n"
    "Ranks: every GPU of every node - the sim machine's GPUs, the GPUs the driver lists\n"
    "(local), SLURM_NTASKS (srun); with mpirun give --ranks.\n"
    "\n"
    "Examples:\n"
    "  mgpulab validate\n"
    "  mgpulab validate --expect dgx-h100 --junit validate.xml\n"
    "  mgpulab validate --sweep --sustained 10m --format markdown\n"
    "  mgpulab validate --backend sim --machine dgx-h100 --fault nvlink-down:3\n"
    "  mgpulab validate --launcher srun --format junit\n"
    "\n"
    "Exit status: 0 healthy (no anomaly); 1 an anomaly was found; 2 bad usage (an\n"
    "option, a --machine or a --fault the run cannot have); 3 could not measure (no\n"
    "usable GPU under --backend auto or cuda, a step that did not run, a rank that died)\n"
    "and nothing anomalous found in what was measured.\n";

typedef enum vformat { F_TEXT = 0, F_MARKDOWN, F_JSON, F_JUNIT } vformat;

typedef struct vargs {
    const char *expect, *markdown, *junit;
    int quick, sweep;
    double sustained_s;   /* 0: no sustained load */
    vformat format;
    double tolerance;     /* 0: each check's own */
} vargs;

/* Exit statuses (the usage text and docs/validate.md say the same). */
enum { EXIT_HEALTHY = 0, EXIT_ANOMALY = 1, EXIT_USAGE = 2, EXIT_UNMEASURED = 3 };

/*--- Running jobs, with progress ---------------------------------------*/

typedef struct vrun {
    int tty, stage, nstages;
    const char *label;
    /* what the current job sent */
    json_t *results;  /* rank 0's "result" bodies */
    json_t *ranks;    /* every rank's "rank" body */
    json_t *devices;  /* rank 0's "devices" */
    double last_wall_s;
    char error[512];
} vrun;

static void progress(vrun *v, const char *detail)
{
    if (!v->tty) return;
    int width = 24, filled = v->nstages ? width * (v->stage - 1) / v->nstages : 0;
    fprintf(stderr, "\r\033[K[%.*s%*s] %d/%d %s%s%s", filled, "########################", width - filled, "",
            v->stage, v->nstages, v->label, detail ? ": " : "", detail ? detail : "");
    fflush(stderr);
}

static void on_msg(void *ctx, const mgpu_rt_msg *m)
{
    vrun *v = ctx;
    if (strcmp(m->type, "rank") == 0) {
        json_array_append(v->ranks, m->body);
        progress(v, "per-rank times");
    } else if (m->rank != 0) {
        return;
    } else if (strcmp(m->type, "result") == 0) {
        json_array_append(v->results, m->body);
        json_t *sz = json_object_get(m->body, "size");
        char buf[64];
        if (json_is_integer(sz)) {
            snprintf(buf, sizeof buf, "%lld bytes", (long long)json_integer_value(sz));
            progress(v, buf);
        }
    } else if (strcmp(m->type, "progress") == 0) {
        progress(v, json_string_value(json_object_get(m->body, "testcase")));
    } else if (strcmp(m->type, "devices") == 0 && !v->devices) {
        v->devices = json_incref(m->body);
    } else if (strcmp(m->type, "error") == 0 && !v->error[0]) {
        const char *s = json_string_value(json_object_get(m->body, "message"));
        snprintf(v->error, sizeof v->error, "%s", s ? s : "(no message)");
    }
}

/* Run one job; on failure add an error check naming the step. Every check
 * added since the last job gets its share of this job's wall time. */
static int run_job(vreport *rep, vrun *v, const char *label, const mgpu_rt_config *cfg, const char *type,
                   json_t *params)
{
    v->stage++;
    v->label = label;
    json_decref(v->results);
    json_decref(v->ranks);
    json_decref(v->devices);
    v->results = json_array();
    v->ranks = json_array();
    v->devices = NULL;
    v->error[0] = '\0';
    progress(v, NULL);
    mgpu_rt_report rr;
    memset(&rr, 0, sizeof rr);
    mgpu_result r = mgpu_rt_run(cfg, type, params, on_msg, v, &rr);
    json_decref(params);
    v->last_wall_s = rr.wall_s;
    rep->wall_s += rr.wall_s;
    if (r == MGPU_OK && rr.ok) return 0;
    vcheck *c = vreport_add(rep, strcmp(type, "topo") == 0 ? "topology" : strcmp(type, "bench") == 0 ? "collective"
                                 : strcmp(type, "copy") == 0 ? "copy" : strcmp(type, "validate_load") == 0 ? "load"
                                 : "ranks", V_ERROR, "%s", label);
    VSET(c, measured, "did not run");
    VSET(c, expected, "a measurement");
    /* the rank's own message is usually inside the coordinator's reason: say it once */
    const char *why = r != MGPU_OK ? mgpu_error_message() : rr.reason;
    int dup = v->error[0] && strstr(why, v->error) != NULL;
    VSET(c, cause, "%s%s%s", why, v->error[0] && !dup ? ": " : "", dup ? "" : v->error);
    VSET(c, next, "%s", rr.analysis[0] ? rr.analysis : "rerun the step alone with MGPU_LOG=debug");
    c->time_s = rr.wall_s;
    mgpu_error_clear();
    return 1;
}

/* Give the checks added since `from` their share of the last job's time. */
static void share_time(vreport *rep, int from, double wall_s)
{
    int n = rep->n - from;
    for (int i = from; i < rep->n && n > 0; i++)
        if (rep->v[i].time_s == 0) rep->v[i].time_s = wall_s / n;
}

/*--- The steps -------------------------------------------------------------*/

static const char *const copy_cases[] = {"host_to_device_memcpy_ce", "device_to_host_memcpy_ce", "device_local_copy",
                                         "device_to_device_memcpy_read_ce", NULL};

static json_t *copy_params(uint64_t size, int copies, int samples)
{
    json_t *tc = json_array();
    for (int i = 0; copy_cases[i]; i++) json_array_append_new(tc, json_string(copy_cases[i]));
    json_t *p = json_pack("{s:o, s:I}", "testcase", tc, "size", (json_int_t)size);
    if (copies) json_object_set_new(p, "copies", json_integer(copies));
    if (samples) json_object_set_new(p, "samples", json_integer(samples));
    return p;
}

/* testcase name -> result, from a copy job's results */
static json_t *by_name(json_t *results)
{
    json_t *o = json_object();
    for (size_t i = 0; i < json_array_size(results); i++) {
        const char *n = json_string_value(json_object_get(json_array_get(results, i), "name"));
        if (n) json_object_set(o, n, json_array_get(results, i));
    }
    return o;
}

static json_t *bench_params(const char *coll, uint64_t big, int quick, int sim)
{
    mgpu_collbench_options o;
    mgpu_collbench_options_default(&o);
    const mgpu_collbench_coll *c = mgpu_collbench_find(coll);
    /* two sizes: a small one (latency) and a big one (bandwidth); all_gather's
     * smallest holds one f32 per rank for up to 2048 ranks */
    o.min_bytes = strcmp(coll, "all_gather") == 0 ? 8192 : 8;
    o.max_bytes = big;
    o.step_factor = big / o.min_bytes;
    if (!sim) {
        o.iters = quick ? 10 : 20;
        o.warmup = quick ? 3 : 5;
        o.set_iters = o.set_warmup = 1;
    }
    return mgpu_collbench_params_json(c, &o);
}

/* The discovered topology's XML in a file the sim can open as --machine. */
static int write_temp_xml(const char *xml, char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/mgpulab-validate-XXXXXX.xml", dir && *dir ? dir : "/tmp");
    int fd = mkstemps(path, 4);
    if (fd < 0) return -1;
    size_t n = strlen(xml);
    int bad = write(fd, xml, n) != (ssize_t)n;
    if (close(fd) != 0 || bad) {
        unlink(path);
        return -1;
    }
    return 0;
}

/* "90s", "10m", "1.5h", "0.05m", "30" (seconds): > 0 and at most a week. */
static int parse_duration(const char *v, double *out)
{
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v) return -1;
    double unit = 1;
    if (!strcmp(end, "m") || !strcmp(end, "min")) unit = 60;
    else if (!strcmp(end, "h")) unit = 3600;
    else if (*end && strcmp(end, "s") != 0) return -1;
    x *= unit;
    if (!(x >= 1e-3 && x <= 7 * 86400.0)) return -1;
    *out = x;
    return 0;
}

static mgpu_result sustained_value(const mgpu_opt *opt, const char *text, mgpu_opt_value *v)
{
    (void)opt;
    if (parse_duration(text, &v->d) != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "--sustained '%s': a duration from 1ms to a week, like 90s, 10m, 1.5h or "
                                           "0.05m", text);
    return MGPU_OK;
}

static mgpu_result tolerance_value(const mgpu_opt *opt, const char *text, mgpu_opt_value *v)
{
    (void)opt;
    char *end = NULL;
    errno = 0;
    double p = strtod(text, &end);
    if (errno || end == text || *end || !(p > 0 && p < 100))
        return mgpu_fail(MGPU_ERR_INVALID, "--tolerance '%s': a percentage between 0 and 100", text);
    v->d = p;
    return MGPU_OK;
}

static const char *const format_names[] = {"text", "markdown", "json", "junit", NULL};

enum { O_EXPECT, O_QUICK, O_SWEEP, O_SUSTAINED, O_FORMAT, O_MARKDOWN, O_JUNIT, O_TOLERANCE };
static const mgpu_opt options[] = {
    [O_EXPECT] = {.name = "--expect", .kind = MGPU_OPT_STRING, .value_name = "M",
                  .help = "the machine it should be: a preset (dgx-h100, ...) or an\nNCCL topology XML of a healthy node; default: its own\ntopology dump"},
    [O_QUICK] = {.name = "--quick", .help = "smaller buffers and fewer iterations (about a quarter\nthe time)"},
    [O_SWEEP] = {.name = "--sweep",
                 .help = "also every collective from 8 B to 8 GiB (factor 2) with\n#wrong, as nccl-tests prints them, each size next to the\nmodel (on the sim capped at 64 MiB, 4 MiB with --quick,\nand it says so)"},
    [O_SUSTAINED] = {.name = "--sustained", .kind = MGPU_OPT_SECONDS, .value_name = "D", .parse = sustained_value,
                     .max = 7 * 86400,
                     .help = "also D of sustained load (HBM copies, PCIe both ways,\nall_reduce) in 10 windows: drift and wrong results over\ntime. D: 90s, 10m, 1.5h, 0.05m (seconds without a unit);\ndevice time (the model's clock on the sim)"},
    [O_FORMAT] = {.name = "--format", .kind = MGPU_OPT_ENUM, .choices = format_names,
                  .help = "what goes to stdout: text (a table; default), markdown,\njson (also the global --json) or junit (JUnit XML for a CI)"},
    [O_MARKDOWN] = {.name = "--markdown", .kind = MGPU_OPT_STRING, .value_name = "FILE",
                    .help = "also write the Markdown report to FILE"},
    [O_JUNIT] = {.name = "--junit", .kind = MGPU_OPT_STRING, .value_name = "FILE", .help = "also write JUnit XML to FILE"},
    [O_TOLERANCE] = {.name = "--tolerance", .kind = MGPU_OPT_DOUBLE, .value_name = "P", .min = 0, .max = 100,
                     .parse = tolerance_value,
                     .help = "one tolerance, percent below the prediction, for every\ncheck (default: each check's own, the model's uncertainty)"},
    MGPU_OPT_END,
};

static int parse_args(int argc, char **argv, const mgpu_cli_globals *g, vargs *a)
{
    memset(a, 0, sizeof *a);
    if (g->json) a->format = F_JSON;
    mgpu_opt_args o;
    int rc = mgpu_opts_parse("validate", options, argc, argv, 0, &o);
    if (rc) return rc;
    a->quick = o.v[O_QUICK].count > 0;
    a->sweep = o.v[O_SWEEP].count > 0;
    a->expect = o.v[O_EXPECT].text;
    a->markdown = o.v[O_MARKDOWN].text;
    a->junit = o.v[O_JUNIT].text;
    if (o.v[O_FORMAT].count) a->format = (vformat)o.v[O_FORMAT].choice;
    if (o.v[O_SUSTAINED].count) a->sustained_s = o.v[O_SUSTAINED].d;
    if (o.v[O_TOLERANCE].count) a->tolerance = o.v[O_TOLERANCE].d / 100.0;
    if (o.noperands) rc = mgpu_cli_usage_error("validate", "unexpected argument '%s'", o.operands[0]);
    mgpu_opts_free(&o);
    if (rc) return rc;
    if (g->backend.kind == MGPU_BACKEND_CUDA && (g->backend.machine || g->backend.fault))
        return mgpu_cli_usage_error("validate", "--machine and --fault describe a simulated machine; use them with "
                                                "--backend sim (the cuda backend validates the real one)");
    return 0;
}

/* The sim only when asked for: --backend sim, or auto with --machine or
 * --fault. Never because no GPU answered (mgpu_backend_config_is_sim's
 * auto fallback): validate measures a real machine or refuses. */
static int asks_for_sim(const mgpu_backend_config *be)
{
    return be->kind == MGPU_BACKEND_SIM || (be->kind == MGPU_BACKEND_AUTO && (be->machine || be->fault));
}

/* On the sim, the machine and its faults are known before anything runs:
 * a machine that does not load, or a fault on a GPU or rank the run does
 * not have, is bad usage. Sets *ranks to every GPU of every node (or
 * --ranks) and *hosts. */
static int check_sim_machine(const mgpu_cli_globals *g, int *ranks, int *hosts)
{
    *ranks = g->ranks, *hosts = 1;
    if (!asks_for_sim(&g->backend)) return 0;
    mgpu_topo *t = NULL;
    if (mgpu_topo_open_machine(g->backend.machine ? g->backend.machine : "dgx-h100", &t) != MGPU_OK) {
        int rc = mgpu_cli_usage_error("validate", "--machine: %s", mgpu_error_message());
        mgpu_error_clear();
        return rc;
    }
    if (*ranks <= 0) *ranks = mgpu_topo_gpu_count(t) > 0 ? mgpu_topo_gpu_count(t) : 1;
    *hosts = mgpu_topo_host_count(t) > 0 ? mgpu_topo_host_count(t) : 1;
    mgpu_result r = mgpu_topo_check_faults(t, g->backend.fault, *ranks);
    mgpu_topo_free(t);
    if (r != MGPU_OK) {
        int rc = mgpu_cli_usage_error("validate", "%s", mgpu_error_message());
        mgpu_error_clear();
        return rc;
    }
    return 0;
}

static int write_file(const char *path, const vreport *rep, vformat f)
{
    /* composed in memory, then written atomically and never over a device
     * or through a link (mgpu/file.h) */
    char *text = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&text, &n);
    if (!out) {
        fprintf(stderr, "mgpulab validate: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (f == F_MARKDOWN) vreport_print_markdown(rep, out);
    else vreport_print_junit(rep, out);
    int bad = fclose(out) != 0 || mgpu_file_write_atomic(path, text, n) != MGPU_OK;
    free(text);
    if (bad) {
        fprintf(stderr, "mgpulab validate: %s\n", mgpu_error_message()[0] ? mgpu_error_message() : "out of memory");
        return 1;
    }
    return 0;
}

/* The hosts the ranks ran on, from their "rank" messages. */
static void note_hosts(vreport *rep, json_t *ranks)
{
    for (size_t i = 0; i < json_array_size(ranks); i++) {
        const char *h = json_string_value(json_object_get(json_array_get(ranks, i), "host"));
        if (!h || strstr(rep->hosts, h)) continue;
        size_t n = strlen(rep->hosts);
        snprintf(rep->hosts + n, sizeof rep->hosts - n, "%s%s", n ? ", " : "", h);
    }
}

static void sweep(const vargs *a, vreport *rep, vrun *v, const mgpu_rt_config *all, const mgpu_topo *mine, int sim)
{
    /* the sim moves every byte in host memory: its sizes stop early */
    uint64_t max = sim ? (a->quick ? 4ull << 20 : 64ull << 20) : (a->quick ? 1ull << 30 : 8ull << 30);
    for (const mgpu_collbench_coll *const *c = mgpu_collbench_colls(); *c; c++) {
        mgpu_collbench_options o;
        mgpu_collbench_options_default(&o);
        o.min_bytes = 8;
        o.max_bytes = max;
        o.step_factor = 2;
        if (!sim) {
            o.iters = a->quick ? 5 : 20;
            o.warmup = a->quick ? 2 : 5;
            o.set_iters = o.set_warmup = 1;
        }
        char label[64];
        snprintf(label, sizeof label, "sweep %s", (*c)->name);
        int from = rep->n;
        if (run_job(rep, v, label, all, "bench", mgpu_collbench_params_json(*c, &o)) == 0) {
            int n = (int)json_integer_value(json_object_get(v->devices, "ranks"));
            validate_sweep(rep, (*c)->name, v->results, mine, n > 0 ? n : 1, sim ? (double)max : 0);
        }
        share_time(rep, from, v->last_wall_s);
    }
}

static void measure(const mgpu_cli_globals *g, const vargs *a, vreport *rep, vrun *v, json_t *doc,
                    const mgpu_topo *mine, const mgpu_backend_config *be, int ranks, int hosts)
{
    int sim = rep->simulated;
    /* The sim's timings are modelled (size changes only how much host memory
     * it moves), so it measures at smaller sizes. */
    uint64_t copy_size = sim ? (a->quick ? 2ull << 20 : 8ull << 20) : (a->quick ? 64ull << 20 : 512ull << 20);
    uint64_t coll_size = sim ? (a->quick ? 4ull << 20 : 32ull << 20) : (a->quick ? 128ull << 20 : 1ull << 30);

    /* copies: measured on the machine (one process, no rank of the run: the
     * machine's faults without the ranks'), predicted on the sim of its
     * topology */
    char machine_faults[256];
    mgpu_topo_faults_of_machine(be->fault, machine_faults, sizeof machine_faults);
    mgpu_rt_config one = {.jobs = mgpu_jobs, .launcher = MGPU_LAUNCH_LOCAL, .ranks = 1, .backend = *be, .timeout_s = g->timeout_s};
    one.backend.fault = machine_faults[0] ? machine_faults : NULL;
    json_t *measured = NULL, *predicted = NULL;
    int from = rep->n;
    double copy_wall = 0;
    if (run_job(rep, v, "copies", &one, "copy", copy_params(copy_size, a->quick ? 4 : 0, a->quick ? 1 : 0)) == 0)
        measured = by_name(v->results);
    copy_wall = v->last_wall_s;
    char xml_path[512];
    const char *xml = json_string_value(json_object_get(doc, "xml"));
    if (xml && write_temp_xml(xml, xml_path, sizeof xml_path) == 0) {
        mgpu_rt_config pred = one;
        pred.backend.kind = MGPU_BACKEND_SIM;
        pred.backend.machine = xml_path;
        pred.backend.fault = NULL; /* the machine as it is wired, healthy */
        if (run_job(rep, v, "copies predicted", &pred, "copy", copy_params(copy_size, 1, 1)) == 0)
            predicted = by_name(v->results);
        unlink(xml_path);
    } else {
        vcheck *c = vreport_add(rep, "copy", V_ERROR, "copy predictions");
        VSET(c, cause, "could not write the topology for the sim to replay: %s", strerror(errno));
    }
    if (measured && predicted) validate_copies(rep, measured, predicted);
    share_time(rep, from, copy_wall);
    json_decref(measured);
    json_decref(predicted);

    /* collectives and per-rank times on every rank of every node */
    mgpu_rt_config all = {.jobs = mgpu_jobs, .ranks = ranks, .backend = *be, .timeout_s = g->timeout_s};
    if (mgpu_launcher_parse(g->launcher ? g->launcher : "local", &all.launcher) != MGPU_OK) mgpu_error_clear();
    static const char *const colls[] = {"all_reduce", "all_gather"};
    for (int k = 0; k < 2; k++) {
        from = rep->n;
        if (run_job(rep, v, colls[k], &all, "bench", bench_params(colls[k], coll_size, a->quick, sim)) == 0) {
            int n = (int)json_integer_value(json_object_get(v->devices, "ranks"));
            rep->nranks = n > 0 ? n : 1;
            validate_collective(rep, colls[k], v->results, mine, n > 0 ? n : 1);
        }
        share_time(rep, from, v->last_wall_s);
    }
    int n = rep->nranks > 0 ? rep->nranks : ranks;
    int per_host = hosts > 1 && n % hosts == 0 ? n / hosts : 0;
    json_t *rp = json_pack("{s:I, s:I, s:i, s:i, s:I}", "work_bytes", (json_int_t)(sim ? 4ull << 20 : 256ull << 20),
                           "coll_bytes", (json_int_t)(1 << 20), "iters", a->quick ? 4 : 8, "per_host", per_host,
                           "net_bytes", (json_int_t)(sim ? 4ull << 20 : a->quick ? 64ull << 20 : 256ull << 20));
    from = rep->n;
    if (run_job(rep, v, "per-rank times", &all, "validate_ranks", rp) == 0) {
        note_hosts(rep, v->ranks);
        validate_ranks(rep, v->ranks);
        if (per_host) validate_network(rep, v->ranks, mine, per_host);
    }
    share_time(rep, from, v->last_wall_s);
    if (a->sweep) sweep(a, rep, v, &all, mine, sim);
    if (a->sustained_s > 0) {
        json_t *lp = json_pack("{s:f, s:i, s:I, s:I, s:I}", "duration_s", a->sustained_s, "windows", 10, "copy_bytes",
                               (json_int_t)(sim ? 4ull << 20 : 256ull << 20), "pcie_bytes",
                               (json_int_t)(sim ? 2ull << 20 : 64ull << 20), "coll_bytes",
                               (json_int_t)(sim ? 1ull << 20 : 64ull << 20));
        from = rep->n;
        if (run_job(rep, v, "sustained load", &all, "validate_load", lp) == 0) validate_load(rep, v->ranks, a->sustained_s);
        share_time(rep, from, v->last_wall_s);
    }
}

/* Under auto, validate measures the real machine or nothing: the workers
 * open cuda, and the reason they could not becomes the refusal. */
static void refuse(vreport *rep, const char *why)
{
    rep->refused = 1;
    vcheck *c = vcheck_about(vreport_add(rep, "backend", V_ERROR, "a GPU to measure"), "backend", -1, -1);
    VSET(c, measured, "no usable GPU");
    VSET(c, expected, "the cuda backend with at least one GPU");
    VSET(c, cause, "%s", why);
    VSET(c, next, "nvidia-smi; echo $CUDA_VISIBLE_DEVICES; to practise on a model instead: mgpulab validate "
         "--backend sim --machine dgx-h100");
    snprintf(rep->backend_line, sizeof rep->backend_line, "cuda: no usable GPU - nothing measured, no fallback to "
             "the sim (%.180s)", why);
}

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    vargs a;
    int rc = parse_args(argc, argv, g, &a);
    if (rc) return rc;
    int ranks, hosts;
    if ((rc = check_sim_machine(g, &ranks, &hosts)) != 0) return rc;
    mgpu_topo *expected = NULL, *mine = NULL;
    if (a.expect && mgpu_topo_open_machine(a.expect, &expected) != MGPU_OK) {
        rc = mgpu_cli_usage_error("validate", "--expect: %s", mgpu_error_message());
        mgpu_error_clear();
        return rc;
    }
    vreport rep = {.tolerance = a.tolerance};
    vrun v = {.tty = isatty(2), .nstages = 5 + (a.sweep ? 7 : 0) + (a.sustained_s > 0)};
    /* no silent simulation: auto without a sim machine or fault means cuda */
    mgpu_backend_config be = g->backend;
    int sim = asks_for_sim(&be);
    if (!sim) be.kind = MGPU_BACKEND_CUDA;
    else be.kind = MGPU_BACKEND_SIM;
    snprintf(rep.backend, sizeof rep.backend, "%s", sim ? "sim" : "cuda");

    /* XIDs from before the first job to after the last (the real machine only) */
    mgpu_xid_watch *xid = NULL;
    char xid_why[256] = "";
    if (!sim && !(xid = mgpu_xid_watch_start())) {
        snprintf(xid_why, sizeof xid_why, "%s", mgpu_error_message());
        mgpu_error_clear();
    }

    /* 1. topology and facts, from one worker (the machine's faults, no rank's) */
    char machine_faults[256];
    mgpu_topo_faults_of_machine(be.fault, machine_faults, sizeof machine_faults);
    mgpu_rt_config one = {.jobs = mgpu_jobs, .launcher = MGPU_LAUNCH_LOCAL, .ranks = 1, .backend = be, .timeout_s = g->timeout_s};
    one.backend.fault = machine_faults[0] ? machine_faults : NULL;
    json_t *doc = NULL;
    if (run_job(&rep, &v, "topology", &one, "topo", json_pack("{s:b}", "facts", 1)) == 0)
        doc = json_incref(json_array_get(v.results, 0));
    else if (!sim) {
        /* the worker could not open cuda (or died doing so): refuse, saying why */
        char why[480];
        snprintf(why, sizeof why, "%s", rep.v[rep.n - 1].cause);
        rep.n--;
        refuse(&rep, why);
        fprintf(stderr, "mgpulab validate: no usable GPU, so nothing was measured (validate never falls back to the "
                "sim): %s\n(to practise on a model: mgpulab validate --backend sim --machine dgx-h100)\n", why);
    }
    if (doc && mgpu_topo_doc_expand(doc) != MGPU_OK) { /* the job's packed rows */
        vcheck *c = vreport_add(&rep, "topology", V_ERROR, "discovered topology");
        VSET(c, cause, "the topology document the worker sent is malformed: %s", mgpu_error_message());
        mgpu_error_clear();
        json_decref(doc);
        doc = NULL;
    }
    if (doc) {
        const char *line = json_string_value(json_object_get(doc, "banner"));
        const char *mach = json_string_value(json_object_get(doc, "machine"));
        snprintf(rep.backend_line, sizeof rep.backend_line, "%s", line ? line : "?");
        snprintf(rep.machine, sizeof rep.machine, "%s", mach ? mach : "?");
        rep.simulated = json_is_true(json_object_get(doc, "simulated"));
        const char *xml = json_string_value(json_object_get(doc, "xml"));
        /* the topology as wired (NCCL's dump of it): what the model replays */
        if (!xml || mgpu_topo_parse_xml(xml, strlen(xml), "the discovered topology", &mine) != MGPU_OK) {
            vcheck *c = vreport_add(&rep, "topology", V_ERROR, "discovered topology");
            VSET(c, cause, "the topology the worker sent does not parse: %s", mgpu_error_message());
            mgpu_error_clear();
        }
    }
    if (doc && mine) {
        int from = rep.n;
        validate_topology(&rep, doc, expected ? expected : mine, expected != NULL);
        validate_facts(&rep, doc);
        share_time(&rep, from, v.last_wall_s);
        if (!sim) hosts = mgpu_topo_host_count(mine) > 0 ? mgpu_topo_host_count(mine) : 1;
        measure(g, &a, &rep, &v, doc, mine, &be, ranks, hosts);
    }
    if (!sim && !rep.refused) {
        json_t *events = mgpu_xid_watch_end(xid);
        validate_xid(&rep, doc, events, xid_why);
        json_decref(events);
    } else {
        json_decref(mgpu_xid_watch_end(xid));
    }
    if (!rep.hosts[0]) {
        char h[64] = "?";
        gethostname(h, sizeof h - 1);
        snprintf(rep.hosts, sizeof rep.hosts, "%s", h);
    }
    if (v.tty) fprintf(stderr, "\r\033[K");
    vreport_find_causes(&rep);

    if (a.format == F_JSON) {
        json_t *j = vreport_json(&rep);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(j);
    } else if (a.format == F_MARKDOWN) {
        vreport_print_markdown(&rep, stdout);
    } else if (a.format == F_JUNIT) {
        vreport_print_junit(&rep, stdout);
    } else {
        vreport_print_text(&rep, stdout, isatty(1) && !getenv("NO_COLOR"));
    }
    int bad = 0;
    if (a.markdown) bad |= write_file(a.markdown, &rep, F_MARKDOWN);
    if (a.junit) bad |= write_file(a.junit, &rep, F_JUNIT);
    if (fflush(stdout) != 0) bad = 1;
    rc = vreport_count(&rep, V_ANOMALY) ? EXIT_ANOMALY
         : vreport_count(&rep, V_ERROR) || bad ? EXIT_UNMEASURED : EXIT_HEALTHY;
    json_decref(doc);
    json_decref(v.results);
    json_decref(v.ranks);
    json_decref(v.devices);
    vreport_free(&rep);
    mgpu_topo_free(expected);
    mgpu_topo_free(mine);
    return rc;
}

const mgpu_cmd mgpu_cmd_validate = {
    .name = "validate",
    .summary = "does this machine perform as it should? topology, NVML, copies, collectives",
    .usage = usage,
    .options = options,
    .epilog = epilog,
    .run = run,
};
