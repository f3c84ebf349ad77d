/* cmd_copy.c - `mgpulab copy`: nvbandwidth's testcases, options and output
 * (matrices in GB/s, SUM lines, N/A cells, waived testcases), or JSON. */
#include "cmd.h"
#include "mgpu/copybench.h"
#include "mgpu/size.h"
#include "mgpu/topo.h"
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
    "Options (nvbandwidth's names):\n"
    "  -b, --bufferSize N      buffer size per copy in MiB (default 512); a size with a\n"
    "                          suffix (64M, 1G; powers of 1024) is taken as written\n"
    "      --loopCount N       copies per sample between the timing events (default 16)\n"
    "  -i, --testSamples N     timed samples per measurement (default 3); also --samples\n"
    "  -m, --useMean           report the mean of the samples instead of the median;\n"
    "                          also --mean\n"
    "  -t, --testcase NAME     run this testcase (name, index or prefix); repeatable;\n"
    "                          names and prefixes may also stand alone\n"
    "  -p, --testcasePrefixes P  run every testcase whose name starts with P\n"
    "  -s, --skipVerification  do not check the copied data\n"
    "  -l, --list              list the testcases with their descriptions\n"
    "  -j, --json              print one JSON object instead of text\n"
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

/* The sim moves every byte for real but its timings are modelled and
 * deterministic, so nvbandwidth's 512 MiB x 16 copies x 3 samples would
 * only make it slow (minutes for the peer matrices of 8 GPUs) without
 * changing a figure beyond the latency term. Options the user did not set
 * get these smaller values on sim; what the user sets is kept. */
#define SIM_DEFAULT_BUFFER (16ull << 20)
#define SIM_DEFAULT_LOOPS 4
#define SIM_DEFAULT_SAMPLES 1

static void apply_sim_defaults(copy_args *a)
{
    if (!a->set_buffer) a->opt.buffer_bytes = SIM_DEFAULT_BUFFER;
    if (!a->set_loops) a->opt.loop_count = SIM_DEFAULT_LOOPS;
    if (!a->set_samples) a->opt.samples = SIM_DEFAULT_SAMPLES;
}

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

static int parse_args(int argc, char **argv, copy_args *a)
{
    mgpu_copy_options_default(&a->opt);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *val = NULL;
        /* options that take a value: "--opt V", "--opt=V", "-b V" */
        static const struct { const char *shortn, *longn; int id; } withv[] = {
            {"-b", "--bufferSize", 'b'}, {NULL, "--loopCount", 'L'}, {"-i", "--testSamples", 'i'},
            {NULL, "--samples", 'i'},    {"-t", "--testcase", 't'},  {"-p", "--testcasePrefixes", 't'},
        };
        int id = 0;
        for (size_t k = 0; k < sizeof withv / sizeof withv[0] && !id; k++) {
            size_t ln = strlen(withv[k].longn);
            if ((withv[k].shortn && strcmp(s, withv[k].shortn) == 0) || strcmp(s, withv[k].longn) == 0) {
                if (i + 1 >= argc) return mgpu_cli_usage_error("copy", "%s needs a value", s);
                id = withv[k].id;
                val = argv[++i];
            } else if (strncmp(s, withv[k].longn, ln) == 0 && s[ln] == '=') {
                id = withv[k].id;
                val = s + ln + 1;
            }
        }
        long long n = 0;
        switch (id) {
        case 'b':
            if (parse_buffer(val, &a->opt.buffer_bytes) != MGPU_OK)
                return mgpu_cli_usage_error("copy", "%s", mgpu_error_message());
            a->set_buffer = 1;
            continue;
        case 'L':
            if (mgpu_parse_count(val, "--loopCount", 1, 1000000, &n) != MGPU_OK)
                return mgpu_cli_usage_error("copy", "%s", mgpu_error_message());
            a->opt.loop_count = (uint64_t)n;
            a->set_loops = 1;
            continue;
        case 'i':
            if (mgpu_parse_count(val, "--testSamples", 1, 1000, &n) != MGPU_OK)
                return mgpu_cli_usage_error("copy", "%s", mgpu_error_message());
            a->opt.samples = (unsigned)n;
            a->set_samples = 1;
            continue;
        case 't':
            if (mgpu_copy_case_select(val, a->sel, MAX_SELECTED, &a->nsel) != MGPU_OK)
                return mgpu_cli_usage_error("copy", "%s", mgpu_error_message());
            continue;
        default: break;
        }
        if (!strcmp(s, "-m") || !strcmp(s, "--useMean") || !strcmp(s, "--mean")) a->opt.use_mean = 1;
        else if (!strcmp(s, "-s") || !strcmp(s, "--skipVerification")) a->opt.skip_verify = 1;
        else if (!strcmp(s, "-l") || !strcmp(s, "--list")) a->list = 1;
        else if (!strcmp(s, "-j") || !strcmp(s, "--json")) a->json = 1;
        else if (s[0] == '-') return mgpu_cli_usage_error("copy", "unknown option '%s'", s);
        else if (all_digits(s)) /* an index alone is too easy to mistake for an option's value */
            return mgpu_cli_usage_error("copy", "'%s': select a testcase by index with -t %s", s, s);
        else if (mgpu_copy_case_select(s, a->sel, MAX_SELECTED, &a->nsel) != MGPU_OK)
            return mgpu_cli_usage_error("copy", "%s", mgpu_error_message());
    }
    return 0;
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

/*--- Text output ----------------------------------------------------------*/

static void print_matrix(const mgpu_copy_matrix *m)
{
    printf("%s\n  ", m->title);
    for (int c = 0; c < m->cols; c++) printf("%10d", c);
    printf("\n");
    for (int r = 0; r < m->rows; r++) {
        printf("%2d", r);
        for (int c = 0; c < m->cols; c++) {
            if (m->have[r * m->cols + c]) printf("%10.2f", m->value[r * m->cols + c]);
            else printf("%10s", "N/A");
        }
        printf("\n");
    }
    printf("\nSUM %s %.2f\n\n", m->key, m->sum);
}

static void print_result(const mgpu_copy_result *r)
{
    if (r->status == MGPU_COPY_WAIVED) {
        printf("Waived: %s: %s.\n\n", r->tc->name, r->reason);
        return;
    }
    if (r->status == MGPU_COPY_ERROR) {
        printf("ERROR: %s: %s\n\n", r->tc->name, r->reason);
        return;
    }
    for (int k = 0; k < r->nmat; k++) print_matrix(&r->mat[k]);
    if (r->tc->pattern == MGPU_PAT_LOCAL) {
        /* The matrix counts each copied byte once (nvbandwidth); memory
         * bandwidth figures count it read and written. Say both. */
        const mgpu_copy_matrix *m = &r->mat[0];
        for (int c = 0; c < m->cols; c++)
            if (m->have[c])
                printf("device_local_copy counting read+write bytes: GPU %d: %.2f GB/s\n", c, 2.0 * m->value[c]);
        printf("(each copied byte is read once and written once; the matrix above counts it once, as "
               "nvbandwidth does; read+write SUM %.2f GB/s)\n\n", r->local_rw_sum);
    }
    for (int i = 0; i < r->nnotes; i++) printf("%s\n", r->notes[i]);
    if (r->nnotes) printf("\n");
}

static void print_header(mgpu_backend *be, const char *line, const copy_args *a)
{
    printf("mgpulab %s copy (nvbandwidth method)\n", MGPU_VERSION);
    printf("Backend: %s\n", line);
    int n = 0;
    mgpu_device_count(be, &n);
    for (int d = 0; d < n; d++) {
        mgpu_device_info info;
        if (mgpu_device_info_get(be, d, &info) == MGPU_OK)
            printf("Device %d: %s (%s)\n", d, info.name, info.pci_bus_id);
    }
    char sz[32];
    printf("\nBuffer size %s (%llu bytes), loop count %llu, %u samples, %s%s\n",
           mgpu_format_size(a->opt.buffer_bytes, sz, sizeof sz), (unsigned long long)a->opt.buffer_bytes,
           (unsigned long long)a->opt.loop_count, a->opt.samples, a->opt.use_mean ? "mean" : "median",
           a->opt.skip_verify ? ", verification off" : "");
    if (mgpu_backend_simulated(be) && !(a->set_buffer && a->set_loops && a->set_samples))
        printf("NOTE: SIMULATED timings are modelled and deterministic, so options not given default to\n"
               "      %llu MiB x %d copies x %d sample on sim (nvbandwidth's 512 MiB x 16 x 3 on GPUs).\n",
               SIM_DEFAULT_BUFFER >> 20, SIM_DEFAULT_LOOPS, SIM_DEFAULT_SAMPLES);
    else if (a->opt.buffer_bytes < MGPU_COPY_DEFAULT_BUFFER)
        printf("NOTE: the buffer is smaller than the default 512 MiB; peak bandwidth needs large buffers.\n");
    printf("\n");
}

/*--- JSON output ----------------------------------------------------------*/

static json_t *matrix_json(const mgpu_copy_matrix *m)
{
    json_t *rows = json_array();
    for (int r = 0; r < m->rows; r++) {
        json_t *row = json_array();
        for (int c = 0; c < m->cols; c++)
            json_array_append_new(row, m->have[r * m->cols + c] ? json_real(m->value[r * m->cols + c]) : json_null());
        json_array_append_new(rows, row);
    }
    return json_pack("{s:s, s:s, s:i, s:i, s:o, s:f}", "key", m->key, "title", m->title, "rows", m->rows,
                     "cols", m->cols, "values", rows, "sum", m->sum);
}

static json_t *result_json(const mgpu_copy_result *r)
{
    static const char *const status[] = {"passed", "waived", "error"};
    json_t *o = json_pack("{s:s, s:s, s:s}", "name", r->tc->name, "status", status[r->status], "engine",
                          mgpu_copy_engine_name(r->tc->engine));
    if (r->status == MGPU_COPY_WAIVED) {
        json_object_set_new(o, "waived_reason", json_string(r->reason));
        return o;
    }
    if (r->status == MGPU_COPY_ERROR) {
        json_object_set_new(o, "error", json_string(r->reason));
        json_object_set_new(o, "error_code", json_string(mgpu_result_name(r->code)));
        return o;
    }
    json_object_set_new(o, "unit", json_string(r->unit));
    json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
    json_t *mats = json_array();
    for (int k = 0; k < r->nmat; k++) json_array_append_new(mats, matrix_json(&r->mat[k]));
    json_object_set_new(o, "matrices", mats);
    /* the testcase's headline SUM: the total matrix of a bidirectional pair */
    json_object_set_new(o, "sum", json_real(r->mat[r->nmat - 1].sum));
    if (r->tc->pattern == MGPU_PAT_LOCAL) {
        json_t *rw = json_array();
        for (int c = 0; c < r->mat[0].cols; c++)
            json_array_append_new(rw, r->mat[0].have[c] ? json_real(2.0 * r->mat[0].value[c]) : json_null());
        json_object_set_new(o, "read_write_gbs", rw);
        json_object_set_new(o, "read_write_sum", json_real(r->local_rw_sum));
        json_object_set_new(o, "read_write_convention",
                            json_string("read_write_gbs and read_write_sum count every copied byte twice (read + write)"));
    }
    json_t *notes = json_array();
    for (int i = 0; i < r->nnotes; i++) json_array_append_new(notes, json_string(r->notes[i]));
    json_object_set_new(o, "notes", notes);
    return o;
}

static json_t *header_json(mgpu_backend *be, const char *line, const copy_args *a)
{
    const mgpu_topo *t = mgpu_backend_topo(be);
    json_t *devs = json_array();
    int n = 0;
    mgpu_device_count(be, &n);
    for (int d = 0; d < n; d++) {
        mgpu_device_info info;
        if (mgpu_device_info_get(be, d, &info) == MGPU_OK)
            json_array_append_new(devs, json_pack("{s:i, s:s, s:s}", "index", d, "name", info.name,
                                                  "pci_bus_id", info.pci_bus_id));
    }
    json_t *opts = json_pack("{s:I, s:f, s:I, s:i, s:s, s:b}", "buffer_bytes", (json_int_t)a->opt.buffer_bytes,
                             "buffer_mib", a->opt.buffer_bytes / 1048576.0, "loop_count",
                             (json_int_t)a->opt.loop_count, "samples", (int)a->opt.samples, "statistic",
                             a->opt.use_mean ? "mean" : "median", "verify", !a->opt.skip_verify);
    return json_pack("{s:s, s:s, s:s, s:b, s:s?, s:s, s:s, s:o, s:o, s:o}", "tool", "mgpulab copy", "version",
                     MGPU_VERSION, "backend", mgpu_backend_name(be), "simulated", mgpu_backend_simulated(be),
                     "machine", t ? mgpu_topo_machine_name(t) : NULL, "backend_line", line, "unit_note",
                     "GB/s = 1e9 bytes per second", "options", opts, "devices", devs, "testcases", json_array());
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
    if (a.nsel == 0) { /* no selection: every testcase, as nvbandwidth runs them all */
        int n = 0;
        const mgpu_copy_case *c = mgpu_copy_cases(&n);
        for (int i = 0; i < n && a.nsel < MAX_SELECTED; i++) a.sel[a.nsel++] = &c[i];
    }
    mgpu_backend *be = NULL;
    if (mgpu_cli_open_backend(g, NULL, &be) != MGPU_OK) return mgpu_cli_error("copy");
    if (mgpu_backend_simulated(be)) apply_sim_defaults(&a);
    char line[512];
    mgpu_cli_backend_line(be, line, sizeof line);
    json_t *doc = a.json ? header_json(be, line, &a) : NULL;
    if (!a.json) print_header(be, line, &a);

    int failed = 0, ndev = 0;
    mgpu_device_count(be, &ndev);
    for (int i = 0; i < a.nsel; i++) {
        mgpu_copy_result r;
        if (!a.json && a.sel[i]->min_gpus <= ndev) {
            printf("Running %s.\n", a.sel[i]->name);
            fflush(stdout);
        }
        if (mgpu_copy_run(be, a.sel[i], &a.opt, &r) != MGPU_OK) {
            mgpu_backend_close(be);
            json_decref(doc);
            return mgpu_cli_error("copy");
        }
        failed += r.status == MGPU_COPY_ERROR;
        if (r.status == MGPU_COPY_ERROR) fprintf(stderr, "mgpulab copy: %s: %s\n", r.tc->name, r.reason);
        if (doc) json_array_append_new(json_object_get(doc, "testcases"), result_json(&r));
        else print_result(&r);
        mgpu_copy_result_free(&r);
    }
    if (doc) {
        json_object_set_new(doc, "failed", json_integer(failed));
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("\n");
        json_decref(doc);
    } else {
        if (mgpu_backend_simulated(be))
            printf("SIMULATED: these figures come from the link model of %s, not from hardware.\n",
                   mgpu_topo_machine_name(mgpu_backend_topo(be)));
        if (failed) printf("%d testcase%s failed.\n", failed, failed == 1 ? "" : "s");
    }
    mgpu_backend_close(be);
    return failed ? 1 : 0;
}

const mgpu_cmd mgpu_cmd_copy = {
    .name = "copy",
    .summary = "copy bandwidth and latency (nvbandwidth's testcases and method)",
    .usage = usage,
    .run = run,
};
