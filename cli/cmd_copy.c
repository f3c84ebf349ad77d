/* cmd_copy.c - `mgpulab copy`: nvbandwidth's testcases, options and output
 * (matrices in GB/s, SUM lines, N/A cells, waived testcases), or JSON. */
#include "cmd.h"
#include "mgpu/copybench.h"
#include "mgpu/size.h"
#include "mgpu/jobs.h"
#include "mgpu/rt.h"
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SELECTED 64

static const char usage[] =
    "usage: mgpulab copy [OPTIONS] [TESTCASE|PREFIX ...]\n"
    "\n"
    "Copy bandwidth and latency with nvbandwidth's method and testcase names: CE (copy\n"
    "engine) and SM (copy kernel) variants of host<->device, device<->device read/write,\n"
    "bidirectional, all_to_host, host_to_all, all_to_one, one_to_all, device_local_copy\n"
    "and latency. Each sample holds the streams with a gate (nvbandwidth's spin kernel)\n"
    "while the copies are queued, so launch latency stays out of the time between the\n"
    "events; bandwidth = bytes x loopCount / time, in GB/s (1e9 bytes/s); the median of\n"
    "the samples is reported. Every copy's destination is verified against its source.\n"
    "Testcases that need more GPUs, or peer access, than the machine has are waived.\n"
    "\n"
    "Options have nvbandwidth's names.\n"
    "\n";

static const char epilog[] =
    "\n"
    "Examples:\n"
    "  mgpulab copy host_to_device_memcpy_ce device_to_host_memcpy_ce\n"
    "  mgpulab copy --backend sim --machine dgx-h100 -t device_to_device -b 64\n"
    "  mgpulab copy device_local_copy --json\n"
    "\n"
    "Exit status: 0 when every testcase that could run passed (waived ones do not count),\n"
    "1 when one failed (out of memory, wrong data), 2 for bad options.\n";

typedef struct copy_args {
    mgpu_copy_options opt;
    const mgpu_copy_case *sel[MAX_SELECTED];
    int nsel;
    int list, json;
    int set_buffer, set_loops, set_samples; /* given on the command line */
} copy_args;

/* Unset options take the sim's smaller defaults in the worker
 * (engine/jobs/copy_job.c); the header says so. */
#define SIM_DEFAULT_BUFFER_MIB 16
#define SIM_DEFAULT_LOOPS 4
#define SIM_DEFAULT_SAMPLES 1

static int all_digits(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* nvbandwidth's --bufferSize is a count of MiB; a value with a unit suffix
 * is a byte size, so "-b 64" and "-b 64M" mean the same. */
static mgpu_result parse_buffer(const char *text, uint64_t *out)
{
    if (text && all_digits(text)) {
        long long mib = 0;
        MGPU_CHECK(mgpu_parse_count(text, "--bufferSize (MiB)", 1, 1 << 20, &mib));
        *out = (uint64_t)mib << 20;
        return MGPU_OK;
    }
    if (text && (*text == '-' || *text == '+')) {
        long long mib = 0; /* gives the range message for "-5" */
        MGPU_CHECK(mgpu_parse_count(text, "--bufferSize (MiB)", 1, 1 << 20, &mib));
    }
    MGPU_CHECK(mgpu_parse_size(text, "--bufferSize", out));
    if (*out == 0 || *out % 16 || *out > (1ull << 40))
        return mgpu_fail(MGPU_ERR_INVALID,
                         "--bufferSize: '%s' must be a positive multiple of 16 bytes, at most 1T", text);
    return MGPU_OK;
}

static mgpu_result buffer_value(const mgpu_opt *opt, const char *text, mgpu_opt_value *v)
{
    (void)opt;
    return parse_buffer(text, &v->size);
}

enum { O_BUFFER, O_LOOPS, O_SAMPLES, O_MEAN, O_TESTCASE, O_PREFIX, O_SKIP, O_LIST, O_JSON };
static const mgpu_opt options[] = {
    [O_BUFFER] = {.name = "--bufferSize", .short_name = 'b', .kind = MGPU_OPT_SIZE, .value_name = "N",
                  .parse = buffer_value,
                  .help = "buffer size per copy in MiB (default 512); a size with a\nsuffix (64M, 1G; powers of 1024) is taken as written"},
    [O_LOOPS] = {.name = "--loopCount", .kind = MGPU_OPT_INT, .min = 1, .max = 1000000,
                 .help = "copies per sample between the timing events (default 16)"},
    [O_SAMPLES] = {.name = "--testSamples", .short_name = 'i', .alias = "--samples", .kind = MGPU_OPT_INT, .min = 1,
                   .max = 1000, .help = "timed samples per measurement (default 3)"},
    [O_MEAN] = {.name = "--useMean", .short_name = 'm', .alias = "--mean",
                .help = "report the mean of the samples instead of the median"},
    [O_TESTCASE] = {.name = "--testcase", .short_name = 't', .kind = MGPU_OPT_STRING, .value_name = "NAME",
                    .flags = MGPU_OPT_REPEAT,
                    .help = "run this testcase (name, index or prefix); repeatable;\nnames and prefixes may also stand alone"},
    [O_PREFIX] = {.name = "--testcasePrefixes", .short_name = 'p', .kind = MGPU_OPT_STRING, .value_name = "P",
                  .flags = MGPU_OPT_REPEAT, .help = "run every testcase whose name starts with P; repeatable"},
    [O_SKIP] = {.name = "--skipVerification", .short_name = 's', .help = "do not check the copied data"},
    [O_LIST] = {.name = "--list", .short_name = 'l', .help = "list the testcases with their descriptions"},
    [O_JSON] = {.name = "--json", .short_name = 'j', .help = "print one JSON object instead of text"},
    MGPU_OPT_END,
};

static int parse_args(int argc, char **argv, copy_args *a)
{
    mgpu_copy_options_default(&a->opt);
    mgpu_opt_args o;
    int rc = mgpu_opts_parse("copy", options, argc, argv, 0, &o);
    if (rc) return rc;
    if (o.v[O_BUFFER].count) a->opt.buffer_bytes = o.v[O_BUFFER].size, a->set_buffer = 1;
    if (o.v[O_LOOPS].count) a->opt.loop_count = (uint64_t)o.v[O_LOOPS].i, a->set_loops = 1;
    if (o.v[O_SAMPLES].count) a->opt.samples = (unsigned)o.v[O_SAMPLES].i, a->set_samples = 1;
    a->opt.use_mean = o.v[O_MEAN].count > 0;
    a->opt.skip_verify = o.v[O_SKIP].count > 0;
    a->list = o.v[O_LIST].count > 0;
    a->json = o.v[O_JSON].count > 0;
    /* testcases in the order given, by -t/-p and standing alone */
    for (int k = 0; k < o.order_len && !rc; k++) {
        const char *s;
        int id = mgpu_opts_at(&o, k, &s);
        if (id != -1 && id != O_TESTCASE && id != O_PREFIX) continue;
        if (id == -1 && all_digits(s)) /* an index alone is too easy to mistake for an option's value */
            rc = mgpu_cli_usage_error("copy", "'%s': select a testcase by index with -t %s", s, s);
        else if (mgpu_copy_case_select(s, a->sel, MAX_SELECTED, &a->nsel) != MGPU_OK)
            rc = mgpu_cli_usage_error("copy", "%s", mgpu_error_message());
    }
    mgpu_opts_free(&o);
    return rc;
}

static void list_cases(void)
{
    int n = 0;
    const mgpu_copy_case *c = mgpu_copy_cases(&n);
    printf("Index, Name:\n\tDescription\n=======================\n");
    for (int i = 0; i < n; i++) {
        printf("%d, %s:\n\t", i, c[i].name);
        for (const char *p = c[i].desc; *p; p++) { /* indent continuation lines too */
            putchar(*p);
            if (*p == '\n') putchar('\t');
        }
        printf("\n\n");
    }
}

/*--- Text output (from the job's documents) ---------------------------------*/

static const char *str_at(json_t *o, const char *key) { return json_string_value(json_object_get(o, key)); }
static double num_at(json_t *o, const char *key) { return json_number_value(json_object_get(o, key)); }

static void print_matrix(json_t *m)
{
    int rows = (int)json_integer_value(json_object_get(m, "rows")), cols = (int)json_integer_value(json_object_get(m, "cols"));
    json_t *vals = json_object_get(m, "values");
    printf("%s\n  ", str_at(m, "title"));
    for (int c = 0; c < cols; c++) printf("%10d", c);
    printf("\n");
    for (int r = 0; r < rows; r++) {
        printf("%2d", r);
        for (int c = 0; c < cols; c++) {
            json_t *v = json_array_get(json_array_get(vals, (size_t)r), (size_t)c);
            if (json_is_number(v)) printf("%10.2f", json_number_value(v));
            else printf("%10s", "N/A");
        }
        printf("\n");
    }
    printf("\nSUM %s %.2f\n\n", str_at(m, "key"), num_at(m, "sum"));
}

static void print_result(json_t *r)
{
    const char *status = str_at(r, "status"), *name = str_at(r, "name");
    if (strcmp(status, "waived") == 0) {
        printf("Waived: %s: %s.\n\n", name, str_at(r, "waived_reason"));
        return;
    }
    if (strcmp(status, "error") == 0) {
        printf("ERROR: %s: %s\n\n", name, str_at(r, "error"));
        return;
    }
    json_t *mats = json_object_get(r, "matrices"), *rw = json_object_get(r, "read_write_gbs");
    for (size_t k = 0; k < json_array_size(mats); k++) print_matrix(json_array_get(mats, k));
    if (rw) {
        /* The matrix counts each copied byte once (nvbandwidth); memory
         * bandwidth figures count it read and written. Say both. */
        for (size_t c = 0; c < json_array_size(rw); c++)
            if (json_is_number(json_array_get(rw, c)))
                printf("device_local_copy counting read+write bytes: GPU %zu: %.2f GB/s\n", c,
                       json_number_value(json_array_get(rw, c)));
        printf("(each copied byte is read once and written once; the matrix above counts it once, as "
               "nvbandwidth does; read+write SUM %.2f GB/s)\n\n", num_at(r, "read_write_sum"));
    }
    json_t *notes = json_object_get(r, "notes");
    for (size_t i = 0; i < json_array_size(notes); i++) printf("%s\n", json_string_value(json_array_get(notes, i)));
    if (json_array_size(notes)) printf("\n");
}

static void print_header(json_t *h)
{
    json_t *o = json_object_get(h, "options"), *devs = json_object_get(h, "devices");
    printf("mgpulab %s copy (nvbandwidth method)\n", MGPU_VERSION);
    printf("Backend: %s\n", str_at(h, "backend_line"));
    for (size_t d = 0; d < json_array_size(devs); d++) {
        json_t *e = json_array_get(devs, d);
        printf("Device %d: %s (%s)\n", (int)json_integer_value(json_object_get(e, "index")), str_at(e, "name"),
               str_at(e, "pci_bus_id"));
    }
    char sz[32];
    uint64_t bytes = (uint64_t)json_integer_value(json_object_get(o, "buffer_bytes"));
    printf("\nBuffer size %s (%llu bytes), loop count %llu, %d samples, %s%s\n", mgpu_format_size(bytes, sz, sizeof sz),
           (unsigned long long)bytes, (unsigned long long)json_integer_value(json_object_get(o, "loop_count")),
           (int)json_integer_value(json_object_get(o, "samples")), str_at(o, "statistic"),
           json_is_true(json_object_get(o, "verify")) ? "" : ", verification off");
    if (json_is_true(json_object_get(h, "sim_defaults")))
        printf("NOTE: SIMULATED timings are modelled and deterministic, so options not given default to\n"
               "      %d MiB x %d copies x %d sample on sim (nvbandwidth's 512 MiB x 16 x 3 on GPUs).\n",
               SIM_DEFAULT_BUFFER_MIB, SIM_DEFAULT_LOOPS, SIM_DEFAULT_SAMPLES);
    else if (bytes < MGPU_COPY_DEFAULT_BUFFER)
        printf("NOTE: the buffer is smaller than the default 512 MiB; peak bandwidth needs large buffers.\n");
    printf("\n");
}

/*--- Running the job ---------------------------------------------------------*/

typedef struct copy_out {
    int json, failed, summary_seen;
    json_t *doc;        /* --json: the header, then "testcases" */
    json_t *header;     /* the "devices" message */
    char error[1024];   /* the worker's own message, when the job failed */
} copy_out;

static void on_msg(void *ctx, const mgpu_rt_msg *m)
{
    copy_out *co = ctx;
    if (m->rank != 0) return;
    if (strcmp(m->type, "devices") == 0 && !co->header) {
        co->header = json_incref(m->body);
        if (co->json) {
            /* the header as --json has always printed it: version second */
            co->doc = json_pack("{s:s, s:s}", "tool", "mgpulab copy", "version", MGPU_VERSION);
            const char *k;
            json_t *v;
            json_object_foreach(m->body, k, v)
                if (strcmp(k, "tool") && strcmp(k, "sim_defaults")) json_object_set(co->doc, k, v);
            json_object_set_new(co->doc, "testcases", json_array());
        } else {
            print_header(m->body);
        }
    } else if (strcmp(m->type, "progress") == 0 && co->header && !co->json) {
        printf("Running %s.\n", str_at(m->body, "testcase"));
        fflush(stdout);
    } else if (strcmp(m->type, "result") == 0 && co->header && str_at(m->body, "status") && str_at(m->body, "name")) {
        if (strcmp(str_at(m->body, "status"), "error") == 0) {
            co->failed++;
            fprintf(stderr, "mgpulab copy: %s: %s\n", str_at(m->body, "name"), str_at(m->body, "error"));
        }
        if (co->doc) json_array_append(json_object_get(co->doc, "testcases"), m->body);
        else print_result(m->body);
        fflush(stdout);
    } else if (strcmp(m->type, "summary") == 0) {
        co->summary_seen = 1;
    } else if (strcmp(m->type, "error") == 0 && !co->error[0]) {
        const char *msg = str_at(m->body, "message");
        snprintf(co->error, sizeof co->error, "%s", msg ? msg : "");
    }
}

static json_t *params_json(const copy_args *a)
{
    json_t *names = json_array();
    for (int i = 0; i < a->nsel; i++) json_array_append_new(names, json_string(a->sel[i]->name));
    json_t *p = json_pack("{s:o, s:b, s:b}", "testcase", a->nsel ? names : (json_decref(names), json_null()),
                          "use_mean", a->opt.use_mean, "skip_verify", a->opt.skip_verify);
    /* only what the user set: the worker picks the backend's defaults */
    if (a->set_buffer) json_object_set_new(p, "size", json_integer((json_int_t)a->opt.buffer_bytes));
    if (a->set_loops) json_object_set_new(p, "copies", json_integer((json_int_t)a->opt.loop_count));
    if (a->set_samples) json_object_set_new(p, "samples", json_integer((json_int_t)a->opt.samples));
    return p;
}

/*--- The command ------------------------------------------------------------*/

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    copy_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    a.json |= g->json;
    if (a.list) {
        list_cases();
        return 0;
    }
    if (g->backend.kind == MGPU_BACKEND_CUDA && (g->backend.machine || g->backend.fault)) {
        mgpu_fail(MGPU_ERR_INVALID, "--machine and --fault describe a simulated machine; use them with "
                                    "--backend sim (the cuda backend uses the real one)");
        return mgpu_cli_error("copy");
    }
    /* One worker measures every device: this process never opens CUDA. */
    mgpu_rt_config cfg = {.jobs = mgpu_jobs, .launcher = MGPU_LAUNCH_LOCAL, .ranks = 1, .backend = g->backend, .timeout_s = g->timeout_s};
    copy_out co = {.json = a.json};
    json_t *params = params_json(&a);
    mgpu_rt_report rep;
    mgpu_result r = mgpu_rt_run(&cfg, "copy", params, on_msg, &co, &rep);
    json_decref(params);
    if (r != MGPU_OK) {
        rc = mgpu_cli_error("copy");
    } else if (!rep.ok || !co.summary_seen) {
        fprintf(stderr, "mgpulab copy: %s\n",
                co.error[0] ? co.error : !rep.ok ? rep.reason : "the worker ended without its summary");
        rc = 1;
    } else if (co.doc) {
        json_object_set_new(co.doc, "failed", json_integer(co.failed));
        json_dumpf(co.doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("\n");
    } else {
        if (json_is_true(json_object_get(co.header, "simulated")))
            printf("SIMULATED: these figures come from the link model of %s, not from hardware.\n",
                   str_at(co.header, "machine"));
        if (co.failed) printf("%d testcase%s failed.\n", co.failed, co.failed == 1 ? "" : "s");
    }
    json_decref(co.doc);
    json_decref(co.header);
    return rc ? rc : co.failed ? 1 : 0;
}

const mgpu_cmd mgpu_cmd_copy = {
    .name = "copy",
    .summary = "copy bandwidth and latency (nvbandwidth's testcases and method)",
    .usage = usage,
    .options = options,
    .epilog = epilog,
    .run = run,
};
