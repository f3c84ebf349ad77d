/* cmd_bench.c - `mgpulab bench COLL`: nccl-tests' flags, method and text
 * output (or JSON), run as the "bench" job on rank workers; this process
 * only prints what rank 0 reports (engine/jobs/coll_job.c). */
#include "cmd.h"
#include "mgpu/coll_doc.h"
#include "mgpu/collmodel.h"
#include "mgpu/host_memory.h"
#include "mgpu/jobs.h"
#include "mgpu/rt.h"
#include "mgpu/topo.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: mgpulab bench COLL [OPTIONS]\n"
    "\n"
    "Collective bandwidth with nccl-tests' method, flags and output. COLL is one of the\n"
    "collectives below (nccl-tests' names such as all_reduce_perf work too). Every rank is\n"
    "a worker process (the global --launcher and --ranks choose them; default: one rank\n"
    "per GPU, on --backend sim one per GPU of the machine's first host). For each size,\n"
    "out-of-place then in-place: a warm-up, then -n calls between two events on the\n"
    "communicator's stream; time = the elapsed time / n (GPU time on cuda, modelled time\n"
    "on sim), algbw = size / time, busbw = algbw x the collective's factor (below, for n\n"
    "ranks); #wrong counts output elements that differ from the exact expected result.\n"
    "\n";

/* The collectives by busbw factor, as the model gives it
 * (mgpu_coll_busbw_factor_text), in the collectives' order:
 * "  busbw factor 2(n-1)/n  all_reduce". */
static void usage_factors(FILE *f)
{
    const mgpu_collbench_coll *const *colls = mgpu_collbench_colls();
    for (int i = 0; colls[i]; i++) {
        const char *text = mgpu_coll_busbw_factor_text(colls[i]->coll);
        int seen = 0;
        for (int k = 0; k < i && !seen; k++) seen = strcmp(mgpu_coll_busbw_factor_text(colls[k]->coll), text) == 0;
        if (seen) continue;
        fprintf(f, "  busbw factor %-10s", text);
        for (int k = i, first = 1; colls[k]; k++)
            if (strcmp(mgpu_coll_busbw_factor_text(colls[k]->coll), text) == 0) {
                fprintf(f, "%s%s", first ? "" : ", ", colls[k]->name);
                first = 0;
            }
        fputc('\n', f);
    }
    fputs("\nOptions have nccl-tests' names; sizes take K, M, G (powers of 1024).\n\n", f);
}

static const char epilog[] =
    "\n"
    "Examples:\n"
    "  mgpulab bench all_reduce -b 8 -e 256M -f 2\n"
    "  mgpulab bench all_gather --backend sim --machine dgx-h100 -b 1M -e 1G -f 2 --predict\n"
    "  mgpulab bench all_reduce --launcher emulate --ranks 4 -b 1M -e 1G -f 2 --json\n"
    "\n"
    "Exit status: 0 when every check passed, 1 on a wrong value or a failed run (the\n"
    "failing rank and the reason are printed), 2 for bad options.\n";

typedef struct bench_out {
    const mgpu_collbench_options *o;
    const mgpu_collbench_coll *coll;
    int json, header_done;
    mgpu_collbench_result res; /* the rows, their counts and (--json) the document */
    int summary_seen;
    int simulated;
    char machine[128];
    const char *fault; /* --fault, said in the header: the numbers are the fault's */
} bench_out;

static void print_header(bench_out *b, json_t *dev)
{
    const mgpu_collbench_options *o = b->o;
    int iters = (int)json_integer_value(json_object_get(dev, "iters"));
    int warmup = (int)json_integer_value(json_object_get(dev, "warmup"));
    printf("# Collective test starting: %s_perf (mgpulab %s)\n", b->coll->name, MGPU_VERSION);
    printf("# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d agg iters: 1 "
           "validation: %d graph: 0\n",
           (unsigned long long)o->min_bytes, (unsigned long long)o->max_bytes,
           (unsigned long long)(o->step_factor > 1 ? o->step_factor : o->step_bytes),
           o->step_factor > 1 ? "factor" : "bytes", warmup, iters, o->check);
    if (o->blocking) printf("# Blocking Enabled: wait for completion after each collective\n");
    if (b->simulated) {
        printf("# SIMULATED machine %s: times are the link model's, data moves for real\n", b->machine);
        if (b->fault && *b->fault) printf("# fault: %s (modelled by the sim: these numbers are the faulty machine's)\n", b->fault);
        if (!o->set_iters || !o->set_warmup)
            printf("# (sim: unset -n/-w default to 1 and 0, the model being deterministic)\n");
        if (o->check) printf("%s\n", mgpu_collbench_check_note(1));
    }
    printf("#\n# Using devices\n");
    json_t *lines = json_object_get(dev, "lines");
    for (size_t i = 0; i < json_array_size(lines); i++) printf("%s\n", json_string_value(json_array_get(lines, i)));
    char hdr[1024];
    mgpu_collbench_format_header(hdr, sizeof hdr);
    printf("#\n%s", hdr);
    fflush(stdout);
}

static void on_msg(void *ctx, const mgpu_rt_msg *m)
{
    bench_out *b = ctx;
    if (m->rank != 0 && strcmp(m->type, "log") != 0) return;
    if (strcmp(m->type, "devices") == 0 && !b->header_done) {
        b->header_done = 1;
        b->simulated = json_is_true(json_object_get(m->body, "simulated"));
        const char *mach = json_string_value(json_object_get(m->body, "machine"));
        snprintf(b->machine, sizeof b->machine, "%s", mach ? mach : "?");
        if (b->json) mgpu_collbench_result_devices(&b->res, m->body);
        else print_header(b, m->body);
    } else if (strcmp(m->type, "result") == 0) {
        mgpu_collbench_row r;
        /* a garbled row counts as a wrong check: never a clean run */
        if (mgpu_collbench_result_add(&b->res, m->body, &r) != MGPU_OK) {
            fprintf(stderr, "mgpulab bench: rank 0 sent a malformed result; ignored\n");
            return;
        }
        if (!b->json) {
            char line[512];
            mgpu_collbench_format_row(&r, line, sizeof line);
            printf("%s\n", line);
            fflush(stdout);
        }
    } else if (strcmp(m->type, "summary") == 0) {
        b->summary_seen = 1;
    } else if (strcmp(m->type, "log") == 0) {
        const char *text = json_string_value(json_object_get(m->body, "text"));
        if (!text) text = json_string_value(json_object_get(m->body, "message"));
        if (text) fprintf(stderr, "[rank %d] %s\n", m->rank, text);
    }
}

/* The model's figure for the largest size on the sim's machine (NULL: no
 * machine to ask, on cuda). */
static void print_prediction(const mgpu_topo *t, const mgpu_collbench_coll *coll, const mgpu_collbench_options *o,
                             int ranks, json_t *doc)
{
    mgpu_coll_prediction p;
    /* NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE, ... as the sim's own runs read them */
    mgpu_coll_tuning tun;
    if (t && mgpu_coll_tuning_from_env(&tun) != MGPU_OK) {
        fprintf(stderr, "mgpulab bench: --predict: %s\n", mgpu_error_message());
        return;
    }
    if (!t || mgpu_coll_predict_tuned(t, coll->coll, o->max_bytes, ranks, NULL, &tun, &p) != MGPU_OK) {
        fprintf(stderr, "mgpulab bench: --predict: %s\n",
                t ? mgpu_error_message() : "the model needs a machine: use --backend sim (and --machine)");
        return;
    }
    if (doc) {
        json_object_set_new(doc, "prediction",
                            json_pack("{s:I, s:f, s:f, s:f, s:s, s:s, s:s?}", "size", (json_int_t)o->max_bytes,
                                      "time", p.time_us, "alg_bw", p.algbw_gbs, "bus_bw", p.busbw_gbs, "algo",
                                      p.algo_name, "proto", p.proto_name, "link", p.link));
        return;
    }
    printf("# Predicted by the model of %s for %llu bytes on %d ranks: time %.2f us, algbw %.2f GB/s, busbw %.2f "
           "GB/s (%s/%s, bottleneck %s)\n",
           mgpu_topo_machine_name(t), (unsigned long long)o->max_bytes, ranks, p.time_us, p.algbw_gbs, p.busbw_gbs,
           p.algo_name, p.proto_name, p.link ? p.link : "?");
}

/* On the sim: the ranks default to the GPUs of the machine's first host
 * (what a rank process's backend sees), and every rank's send and receive
 * buffers are real host memory, which must fit. 0, or the exit status. */
static int sim_run_fits(const mgpu_topo *t, const mgpu_collbench_options *o, mgpu_rt_config *cfg)
{
    if (cfg->ranks == 0)
        while (mgpu_topo_gpu_index(t, 0, cfg->ranks) >= 0) cfg->ranks++;
    unsigned long long need = (unsigned long long)cfg->ranks * 2ull * (o->max_bytes + (4ull << 20));
    unsigned long long avail = mgpu_host_available_bytes();
    if (need <= avail / 2) return 0;
    fprintf(stderr, "mgpulab bench: -e %llu on %d simulated ranks needs about %llu MiB of host memory; "
                    "only %llu MiB are available (the sim keeps every buffer in host memory): lower -e or "
                    "--ranks\n", (unsigned long long)o->max_bytes, cfg->ranks, need >> 20, avail >> 20);
    return 1;
}

/* What the run's report adds to the output; the exit status. */
static int finish(bench_out *b, const mgpu_rt_report *rep, const mgpu_topo *machine, int ranks)
{
    const mgpu_collbench_options *o = b->o;
    int64_t wrong_checks = b->res.wrong_checks;
    int rc = 0;
    if (b->json) {
        json_t *doc = mgpu_collbench_result_finish(&b->res, rep);
        if (o->predict) print_prediction(machine, b->coll, o, ranks, doc);
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("\n");
        json_decref(doc);
    } else if (b->header_done) {
        char foot[256];
        mgpu_collbench_format_footer(wrong_checks, mgpu_collbench_result_avg(&b->res), foot, sizeof foot);
        fputs(foot, stdout);
        if (o->predict) print_prediction(machine, b->coll, o, ranks, NULL);
        printf("# Collective test concluded: %s_perf\n", b->coll->name);
    }
    if (!rep->ok) {
        fprintf(stderr, "mgpulab bench: the run failed: %s\n", rep->reason[0] ? rep->reason : "(no reason given)");
        if (rep->analysis[0]) fprintf(stderr, "mgpulab bench: flight recorder: %s\n", rep->analysis);
        rc = 1;
    } else if (!b->summary_seen) {
        fprintf(stderr, "mgpulab bench: rank 0 ended without its summary\n");
        rc = 1;
    }
    if (wrong_checks) {
        fprintf(stderr, "mgpulab bench: %lld check%s found wrong values\n", (long long)wrong_checks,
                wrong_checks == 1 ? "" : "s");
        rc = 1;
    }
    return rc;
}

/* The bench job on the workers, its rows printed as they come. */
static int bench_run(const mgpu_cli_globals *g, const mgpu_collbench_options *o, const mgpu_collbench_coll *coll,
                     const mgpu_rt_config *cfg, const mgpu_topo *machine)
{
    bench_out b = {.o = o, .coll = coll, .json = o->json || g->json, .fault = g->backend.fault};
    mgpu_collbench_result_init(&b.res, coll, o, MGPU_VERSION);
    if (b.fault && *b.fault) json_object_set_new(b.res.doc, "fault", json_string(b.fault));
    json_t *params = mgpu_collbench_params_json(coll, o);
    mgpu_rt_report rep;
    memset(&rep, 0, sizeof rep);
    mgpu_result r = mgpu_rt_run(cfg, "bench", params, on_msg, &b, &rep);
    json_decref(params);
    int rc = r != MGPU_OK ? mgpu_cli_error("bench") : finish(&b, &rep, machine, cfg->ranks);
    mgpu_collbench_result_free(&b.res);
    return rc;
}

/*--- Options -----------------------------------------------------------------*/

/* Each value is checked by the engine's own setter (coll_options.c, whose
 * messages name nccl-tests' flag: "-b: ..."), on a scratch copy here and
 * for real in command-line order once every word has parsed. */
static mgpu_result bench_value(const mgpu_opt *opt, const char *text, mgpu_opt_value *v)
{
    (void)v;
    mgpu_collbench_options scratch;
    mgpu_collbench_options_default(&scratch);
    return mgpu_collbench_set(&scratch, opt->short_name, text, NULL);
}

static const char *const ops[] = {"sum", "prod", "max", "min", "avg", "all", NULL};
static const char *const types[] = {"float", "half", "bfloat16", "int32", "all", NULL};

#define BENCH_INT(s, n, lo, hi, text) \
    {.name = n, .short_name = s, .kind = MGPU_OPT_INT, .min = lo, .max = hi, .parse = bench_value, .help = text}
#define BENCH_SIZE(s, n, text) \
    {.name = n, .short_name = s, .kind = MGPU_OPT_SIZE, .max = 64.0 * (1ull << 30), .parse = bench_value, .help = text}
enum { O_JSON = 16, O_PREDICT };
static const mgpu_opt options[] = {
    BENCH_SIZE('b', "--minbytes", "smallest size (default 8)"),
    BENCH_SIZE('e', "--maxbytes", "largest size (default 32M)"),
    BENCH_INT('f', "--stepfactor", 1, 1 << 20, "multiply the size by N each step (default 1: add -i)"),
    BENCH_SIZE('i', "--stepbytes", "add SIZE bytes each step when -f is 1 (default 1M)"),
    BENCH_INT('n', "--iters", 1, 1000000, "timed calls per measurement (default 20; 1 on sim)"),
    BENCH_INT('w', "--warmup_iters", 0, 1000000, "warm-up calls (default 5; 0 on sim)"),
    {.name = "--check", .short_name = 'c', .kind = MGPU_OPT_INT, .value_name = "0|1", .min = 0, .max = 1,
     .parse = bench_value, .help = "check the results (default 1)"},
    {.name = "--op", .short_name = 'o', .kind = MGPU_OPT_ENUM, .choices = ops, .parse = bench_value,
     .help = "the reduction (default sum)"},
    {.name = "--datatype", .short_name = 'd', .kind = MGPU_OPT_ENUM, .choices = types, .parse = bench_value,
     .help = "the element type (default float)"},
    BENCH_INT('r', "--root", 0, 1 << 20, "root rank of broadcast and reduce (default 0)"),
    {.name = "--blocking", .short_name = 'z', .kind = MGPU_OPT_INT, .value_name = "0|1", .min = 0, .max = 1,
     .parse = bench_value, .help = "wait for each call to finish before the next (default 0)"},
    {.name = "--average", .short_name = 'a', .kind = MGPU_OPT_INT, .value_name = "0..3", .min = 0, .max = 3,
     .parse = bench_value, .help = "time reported: 0 rank 0, 1 mean, 2 min, 3 max over ranks\n(default 1)"},
    BENCH_INT('G', "--cudagraph", 0, 0, "CUDA graph launches: only 0 (not supported)"),
    BENCH_INT('t', "--nthreads", 1, 1, "threads per process: only 1 (one rank per process)"),
    BENCH_INT('g', "--ngpus", 1, 1, "GPUs per thread: only 1 (choose ranks with --ranks)"),
    BENCH_INT('m', "--agg_iters", 1, 1, "collectives aggregated per iteration: only 1"),
    [O_JSON] = {.name = "--json", .short_name = 'j', .help = "print the rows as JSON (nccl-tests' field names)"},
    [O_PREDICT] = {.name = "--predict", .help = "add the machine model's prediction for the largest size"},
    MGPU_OPT_END,
};

/* The collective and the options; 0, or 2 with the usage error printed. */
static int parse(int argc, char **argv, mgpu_collbench_options *o, const mgpu_collbench_coll **coll)
{
    mgpu_collbench_options_default(o);
    *coll = NULL;
    mgpu_opt_args a;
    int rc = mgpu_opts_parse("bench", options, argc, argv, 0, &a);
    if (rc) return rc;
    o->json = a.v[O_JSON].count > 0;
    o->predict = a.v[O_PREDICT].count > 0;
    char names[256];
    for (int k = 0; k < a.order_len && !rc; k++) {
        const char *text;
        int id = mgpu_opts_at(&a, k, &text);
        if (id >= 0 && options[id].parse == bench_value) {
            if (mgpu_collbench_set(o, options[id].short_name, text, NULL) != MGPU_OK)
                rc = mgpu_cli_usage_error("bench", "%s", mgpu_error_message());
        } else if (id < 0) {
            const mgpu_collbench_coll *c = NULL;
            if (mgpu_collbench_lookup(text, &c) != MGPU_OK)
                rc = mgpu_cli_usage_error("bench", "%s", mgpu_error_message());
            else if (*coll && *coll != c)
                rc = mgpu_cli_usage_error("bench", "one collective per run ('%s' and '%s' given)", (*coll)->name, c->name);
            *coll = c;
        }
    }
    mgpu_opts_free(&a);
    if (rc) return rc;
    if (!*coll) return mgpu_cli_usage_error("bench", "which collective? %s", mgpu_collbench_names(names, sizeof names));
    if (mgpu_collbench_options_check(o, *coll) != MGPU_OK) return mgpu_cli_usage_error("bench", "%s", mgpu_error_message());
    return 0;
}

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    mgpu_collbench_options o;
    const mgpu_collbench_coll *coll = NULL;
    int prc = parse(argc, argv, &o, &coll);
    if (prc) return prc;
    if (g->backend.kind == MGPU_BACKEND_CUDA && (g->backend.machine || g->backend.fault))
        return mgpu_cli_usage_error("bench", "--machine and --fault describe a simulated machine; use them with "
                                             "--backend sim");
    mgpu_rt_config cfg = {.jobs = mgpu_jobs, .ranks = g->ranks, .backend = g->backend, .timeout_s = g->timeout_s};
    if (mgpu_launcher_parse(g->launcher ? g->launcher : "local", &cfg.launcher) != MGPU_OK)
        return mgpu_cli_usage_error("bench", "%s", mgpu_error_message());
    /* The coordinator never opens a device backend: on the sim it asks the
     * machine's model (GPU count, name, --predict) instead. */
    mgpu_topo *machine = NULL;
    if (mgpu_backend_config_is_sim(&g->backend) && mgpu_backend_config_sim_topo(&g->backend, &machine) != MGPU_OK)
        return mgpu_cli_error("bench");
    int rc = machine ? sim_run_fits(machine, &o, &cfg) : 0;
    if (!rc && coll->rooted && cfg.ranks > 0 && o.root >= cfg.ranks)
        rc = mgpu_cli_usage_error("bench", "-r %d: the root must be a rank, 0..%d", o.root, cfg.ranks - 1);
    if (!rc) rc = bench_run(g, &o, coll, &cfg, machine);
    mgpu_topo_free(machine);
    return rc;
}

const mgpu_cmd mgpu_cmd_bench = {
    .name = "bench",
    .summary = "collective bandwidth (nccl-tests' method, flags and output)",
    .usage = usage,
    .usage_more = usage_factors,
    .options = options,
    .epilog = epilog,
    .run = run,
};
