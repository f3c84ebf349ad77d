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
#include "mgpu/collbench.h"
#include "mgpu/jobs.h"
#include "mgpu/rt.h"
#include "mgpu/size.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: mgpulab validate [--expect PRESET|FILE.xml] [--quick] [--format text|markdown|json|junit]\n"
    "                        [--markdown FILE] [--junit FILE] [--tolerance PERCENT]\n"
    "\n"
    "Checks that this machine performs as it should and says why where it does not.\n"
    "Topology: GPU count, NVLinks missing or degraded, PCIe links below their maximum\n"
    "generation or width, NUMA and NIC affinity, GPUDirect RDMA, peer access. NVML facts:\n"
    "per-link NVLink state and speed, PCIe current vs maximum, ECC, clocks and their\n"
    "slowdown reasons, power (\"not reported\" where NVML gives nothing). Measurements:\n"
    "copy bandwidth per link class (host<->device, local, GPU<->GPU), all_reduce and\n"
    "all_gather bus bandwidth and small-message latency, per-rank times (a straggler is\n"
    "named). Each measurement is compared with what the sim's model predicts for this\n"
    "exact topology (the discovered NCCL topology replayed on the sim, GPU model\n"
    "included); more than the tolerance below it is an anomaly, explained with its\n"
    "likely cause and what to check next. Multi-node: the collective and per-rank steps\n"
    "run through --launcher mpirun or srun.\n"
    "\n"
    "Options:\n"
    "  --expect M        the machine it should be: a preset (dgx-h100, ...) or an NCCL\n"
    "                    topology XML of a healthy node; default: its own topology dump\n"
    "  --quick           smaller buffers and fewer iterations (about a quarter the time)\n"
    "  --format F        what goes to stdout: text (a table; default), markdown, json\n"
    "                    (also the global --json) or junit (JUnit XML for a CI)\n"
    "  --markdown FILE   also write the Markdown report to FILE\n"
    "  --junit FILE      also write JUnit XML to FILE\n"
    "  --tolerance P     percent below the prediction that is still fine (default 15)\n"
    "\n"
    "Examples:\n"
    "  mgpulab validate\n"
    "  mgpulab validate --expect dgx-h100 --junit validate.xml\n"
    "  mgpulab validate --backend sim --machine dgx-h100 --fault nvlink-down:3\n"
    "  mgpulab validate --launcher srun --ranks 16 --format markdown\n"
    "\n"
    "Exit status: 0 when no anomaly was found, 1 on an anomaly or a step that could not\n"
    "run, 2 for bad options.\n";

typedef enum vformat { F_TEXT = 0, F_MARKDOWN, F_JSON, F_JUNIT } vformat;

typedef struct vargs {
    const char *expect, *markdown, *junit;
    int quick;
    vformat format;
    double tolerance;
} vargs;

/*--- Running jobs, with progress ---------------------------------------*/

typedef struct vrun {
    int tty, stage, nstages;
    const char *label;
    /* what the current job sent */
    json_t *results;  /* rank 0's "result" bodies */
    json_t *ranks;    /* every rank's "rank" body */
    json_t *devices;  /* rank 0's "devices" */
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

/* Run one job; on failure add an error check naming the step. */
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
    if (r == MGPU_OK && rr.ok) return 0;
    vcheck *c = vreport_add(rep, strcmp(type, "topo") == 0 ? "topology" : strcmp(type, "bench") == 0 ? "collective"
                                 : strcmp(type, "copy") == 0 ? "copy" : "ranks", V_ERROR, "%s", label);
    VSET(c, measured, "did not run");
    VSET(c, expected, "a measurement");
    VSET(c, cause, "%s%s%s", r != MGPU_OK ? mgpu_error_message() : rr.reason, v->error[0] ? ": " : "", v->error);
    VSET(c, next, "%s%s", rr.analysis[0] ? rr.analysis : "rerun the step alone with MGPU_LOG=debug", "");
    mgpu_error_clear();
    return 1;
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

static int parse_args(int argc, char **argv, const mgpu_cli_globals *g, vargs *a)
{
    memset(a, 0, sizeof *a);
    a->tolerance = 0.15;
    if (g->json) a->format = F_JSON;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = strcmp(s, "--expect") == 0 || strcmp(s, "--format") == 0 || strcmp(s, "--markdown") == 0 ||
                    strcmp(s, "--junit") == 0 || strcmp(s, "--tolerance") == 0;
        if (takes && !val) return mgpu_cli_usage_error("validate", "%s needs a value", s);
        if (strcmp(s, "--quick") == 0) a->quick = 1;
        else if (strcmp(s, "--expect") == 0) a->expect = val;
        else if (strcmp(s, "--markdown") == 0) a->markdown = val;
        else if (strcmp(s, "--junit") == 0) a->junit = val;
        else if (strcmp(s, "--format") == 0) {
            static const char *const names[] = {"text", "markdown", "json", "junit"};
            int k = -1;
            for (int f = 0; f < 4; f++)
                if (strcmp(val, names[f]) == 0) k = f;
            if (k < 0) return mgpu_cli_usage_error("validate", "--format '%s': use text, markdown, json or junit", val);
            a->format = (vformat)k;
        } else if (strcmp(s, "--tolerance") == 0) {
            char *end = NULL;
            errno = 0;
            double p = strtod(val, &end);
            if (errno || end == val || *end || !(p > 0 && p < 100))
                return mgpu_cli_usage_error("validate", "--tolerance '%s': a percentage between 0 and 100", val);
            a->tolerance = p / 100.0;
        } else if (s[0] == '-') {
            return mgpu_cli_usage_error("validate", "unknown option '%s'", s);
        } else {
            return mgpu_cli_usage_error("validate", "unexpected argument '%s'", s);
        }
        if (takes) i++;
    }
    if (g->backend.kind == MGPU_BACKEND_CUDA && (g->backend.machine || g->backend.fault))
        return mgpu_cli_usage_error("validate", "--machine and --fault describe a simulated machine; use them with "
                                                "--backend sim (the cuda backend validates the real one)");
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

static void measure(const mgpu_cli_globals *g, const vargs *a, vreport *rep, vrun *v, json_t *doc,
                    const mgpu_topo *mine)
{
    int sim = rep->simulated;
    /* The sim's timings are modelled (size changes only how much host memory
     * it moves), so it measures at smaller sizes. */
    uint64_t copy_size = sim ? (a->quick ? 2ull << 20 : 8ull << 20) : (a->quick ? 64ull << 20 : 512ull << 20);
    uint64_t coll_size = sim ? (a->quick ? 4ull << 20 : 32ull << 20) : (a->quick ? 128ull << 20 : 1ull << 30);

    /* copies: measured on the machine, predicted on the sim of its topology */
    mgpu_rt_config one = {.jobs = mgpu_jobs, .launcher = MGPU_LAUNCH_LOCAL, .ranks = 1, .backend = g->backend, .timeout_s = g->timeout_s};
    json_t *measured = NULL, *predicted = NULL;
    if (run_job(rep, v, "copies", &one, "copy", copy_params(copy_size, a->quick ? 4 : 0, a->quick ? 1 : 0)) == 0)
        measured = by_name(v->results);
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
    json_decref(measured);
    json_decref(predicted);

    /* collectives and per-rank times on every rank */
    mgpu_rt_config all = {.jobs = mgpu_jobs, .ranks = g->ranks, .backend = g->backend, .timeout_s = g->timeout_s};
    if (mgpu_launcher_parse(g->launcher ? g->launcher : "local", &all.launcher) != MGPU_OK) mgpu_error_clear();
    if (sim && all.ranks == 0) {
        int n = 0;
        for (size_t i = 0; i < json_array_size(json_object_get(doc, "gpus")); i++)
            n += json_integer_value(json_object_get(json_array_get(json_object_get(doc, "gpus"), i), "host")) == 0;
        all.ranks = n > 0 ? n : 1;
    }
    static const char *const colls[] = {"all_reduce", "all_gather"};
    for (int k = 0; k < 2; k++) {
        if (run_job(rep, v, colls[k], &all, "bench", bench_params(colls[k], coll_size, a->quick, sim))) continue;
        int n = (int)json_integer_value(json_object_get(v->devices, "ranks"));
        validate_collective(rep, colls[k], v->results, mine, n > 0 ? n : 1);
    }
    json_t *rp = json_pack("{s:I, s:I, s:i}", "work_bytes", (json_int_t)(sim ? 4ull << 20 : 256ull << 20),
                           "coll_bytes", (json_int_t)(1 << 20), "iters", a->quick ? 4 : 8);
    if (run_job(rep, v, "per-rank times", &all, "validate_ranks", rp) == 0) validate_ranks(rep, v->ranks);
}

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    vargs a;
    int rc = parse_args(argc, argv, g, &a);
    if (rc) return rc;
    mgpu_topo *expected = NULL, *mine = NULL;
    if (a.expect && mgpu_topo_open_machine(a.expect, &expected) != MGPU_OK) {
        fprintf(stderr, "mgpulab validate: --expect: %s\n", mgpu_error_message());
        return 2;
    }
    vreport rep = {.tolerance = a.tolerance};
    vrun v = {.tty = isatty(2), .nstages = 6};

    /* 1. topology and facts, from one worker */
    mgpu_rt_config one = {.jobs = mgpu_jobs, .launcher = MGPU_LAUNCH_LOCAL, .ranks = 1, .backend = g->backend, .timeout_s = g->timeout_s};
    json_t *doc = NULL;
    if (run_job(&rep, &v, "topology", &one, "topo", json_pack("{s:b}", "facts", 1)) == 0)
        doc = json_incref(json_array_get(v.results, 0));
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
        validate_topology(&rep, doc, expected ? expected : mine, expected != NULL);
        validate_facts(&rep, doc);
        measure(g, &a, &rep, &v, doc, mine);
    }
    if (v.tty) fprintf(stderr, "\r\033[K");

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
    rc = bad || vreport_count(&rep, V_ANOMALY) || vreport_count(&rep, V_ERROR) ? 1 : 0;
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
    .run = run,
};
