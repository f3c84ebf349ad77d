/* cmd_whatif.c - `mgpulab whatif`: one training step of a Llama-shaped
 * model under DP x TP x PP on a cluster of identical nodes, timing-only
 * (engine/whatif, mgpu/whatif.h): step time, memory per GPU, the pipeline
 * bubble, and per axis which collective moves how many bytes over which
 * links. Pure arithmetic in this process: no worker, no device. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "mgpu/whatif.h"

static const char usage[] =
    "usage: mgpulab whatif [--dp N] [--tp N] [--pp N] [--micro-batches M | --global-batch B]\n"
    "                      [--micro-batch-size S] [--zero 0|1] [--recompute 0|1] [--nodes N]\n"
    "                      [--machine NODE]\n"
    "                      [--layers L] [--hidden H] [--ffn F] [--heads A] [--kv-heads K]\n"
    "                      [--vocab V] [--seq T] [--json]\n"
    "\n"
    "What one training step would take at scale, TIMING-ONLY: a Llama-shaped model\n"
    "(default Llama-2-70B) split DP x TP x PP (default the note's 8 x 8 x 4 = 256 GPUs)\n"
    "over nodes like --machine (default dgx-h100: 8 GPUs on NVSwitch, one 400G\n"
    "InfiniBand NIC each). The per-rank programme - Megatron's layer ops with their\n"
    "TP all-reduces, the 1F1B pipeline's send/recv, the DP gradient exchange, AdamW -\n"
    "is simulated in one process, one rank per pipeline stage (the ranks of a TP or\n"
    "DP group are symmetric), with the sim's compute and NCCL models: no process per\n"
    "rank, nothing runs on a GPU. Ranks are numbered TP fastest, then DP, then PP.\n"
    "\n"
    "\n";

static const char epilog[] =
    "\n"
    "The machine is the global --machine (default dgx-h100); --json prints one JSON object\n"
    "instead of the tables.\n"
    "\n"
    "Examples:\n"
    "  mgpulab whatif\n"
    "  mgpulab whatif --dp 4 --tp 8 --pp 8\n"
    "  mgpulab whatif --dp 16 --tp 4 --pp 4 --recompute 1 --json\n"
    "\n"
    "Exit status: 0 on success, 2 for bad options (a malformed or repeated value, both\n"
    "--micro-batches and --global-batch, or a layout the model cannot split: --tp that\n"
    "does not divide the heads, --pp the layers, an unknown --machine), 1 when the\n"
    "simulation itself fails.\n";

static const char *const zero_one[] = {"0", "1", NULL};

#define COUNT(opt, lo, text) {.name = opt, .kind = MGPU_OPT_INT, .min = lo, .max = 1 << 30, .help = text}
enum { O_DP, O_TP, O_PP, O_MICRO_BATCHES, O_GLOBAL_BATCH, O_MBS, O_ZERO, O_RECOMPUTE, O_NODES, O_LAYERS, O_HIDDEN,
       O_FFN, O_HEADS, O_KV_HEADS, O_VOCAB, O_SEQ, O_JSON };
static const mgpu_opt options[] = {
    [O_DP] = COUNT("--dp", 1, "data parallel size (default 8)"),
    [O_TP] = COUNT("--tp", 1, "tensor parallel size (default 8)"),
    [O_PP] = COUNT("--pp", 1, "pipeline parallel size (default 4)"),
    [O_MICRO_BATCHES] = {.name = "--micro-batches", .kind = MGPU_OPT_INT, .value_name = "M", .min = 0, .max = 1 << 30,
                         .conflicts = "--global-batch",
                         .conflict_why = "both given: give one (the other follows from it, B = M x dp x S)",
                         .help = "micro-batches per step and DP replica (1F1B)"},
    [O_GLOBAL_BATCH] = {.name = "--global-batch", .kind = MGPU_OPT_INT, .value_name = "B", .min = 1, .max = 1 << 30,
                        .help = "sequences per step, default 1024 (M = B / (dp x S))"},
    [O_MBS] = {.name = "--micro-batch-size", .kind = MGPU_OPT_INT, .value_name = "S", .min = 1, .max = 1 << 30,
               .help = "sequences per micro-batch, default 1"},
    [O_ZERO] = {.name = "--zero", .kind = MGPU_OPT_ENUM, .choices = zero_one,
                .help = "0: all-reduce the gradients (default); 1: distributed\noptimizer (reduce-scatter gradients, all-gather weights)"},
    [O_RECOMPUTE] = {.name = "--recompute", .kind = MGPU_OPT_ENUM, .choices = zero_one,
                     .help = "1: recompute each layer's activations in the backward\n(keeps only its input; the forward runs twice)"},
    [O_NODES] = COUNT("--nodes", 0, "nodes in the cluster (default dp x tp x pp / GPUs per node)"),
    [O_LAYERS] = COUNT("--layers", 1, "the model's layers (default 80)"),
    [O_HIDDEN] = COUNT("--hidden", 1, "hidden size (default 8192)"),
    [O_FFN] = COUNT("--ffn", 1, "feed-forward size (default 28672)"),
    [O_HEADS] = COUNT("--heads", 1, "attention heads (default 64)"),
    [O_KV_HEADS] = COUNT("--kv-heads", 1, "KV heads (default 8)"),
    [O_VOCAB] = COUNT("--vocab", 1, "vocabulary (default 32000)"),
    [O_SEQ] = COUNT("--seq", 1, "sequence length (default 4096)"),
    [O_JSON] = {.name = "--json", .short_name = 'j', .help = "one JSON object instead of the tables"},
    MGPU_OPT_END,
};

static int parse(int argc, char **argv, mgpu_whatif_config *c, int *json)
{
    int *const fields[] = {
        [O_DP] = &c->dp, [O_TP] = &c->tp, [O_PP] = &c->pp, [O_MICRO_BATCHES] = &c->micro_batches,
        [O_GLOBAL_BATCH] = &c->global_batch, [O_MBS] = &c->micro_batch_size, [O_ZERO] = &c->zero,
        [O_RECOMPUTE] = &c->recompute, [O_NODES] = &c->nodes, [O_LAYERS] = &c->model.layers,
        [O_HIDDEN] = &c->model.hidden, [O_FFN] = &c->model.ffn, [O_HEADS] = &c->model.heads,
        [O_KV_HEADS] = &c->model.kv_heads, [O_VOCAB] = &c->model.vocab, [O_SEQ] = &c->model.seq,
    };
    mgpu_opt_args o;
    int rc = mgpu_opts_parse("whatif", options, argc, argv, 0, &o);
    if (rc) return rc;
    for (int k = 0; k < O_JSON; k++)
        if (o.v[k].count)
            *fields[k] = options[k].kind == MGPU_OPT_ENUM ? o.v[k].choice : (int)o.v[k].i;
    if (o.v[O_JSON].count) *json = 1;
    if (o.noperands) rc = mgpu_cli_usage_error("whatif", "unexpected argument '%s'", o.operands[0]);
    mgpu_opts_free(&o);
    return rc;
}

static const char *gib(double bytes, char *buf, size_t len)
{
    snprintf(buf, len, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    return buf;
}

static const char *size_str(double bytes, char *buf, size_t len)
{
    if (bytes >= 1024.0 * 1024 * 1024) snprintf(buf, len, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024) snprintf(buf, len, "%.1f MiB", bytes / (1024.0 * 1024));
    else snprintf(buf, len, "%.0f B", bytes);
    return buf;
}

static void print_text(const mgpu_whatif_config *c, const mgpu_whatif_result *r)
{
    char a[32], b[32], d[32], e[32], f[32], g[sizeof r->traffic[0].collective];
    printf("What-if (TIMING-ONLY, simulated in one process): %.1fB-parameter model, %d layers, hidden %d\n",
           r->params / 1e9, c->model.layers, c->model.hidden);
    printf("Layout: DP %d x TP %d x PP %d = %d GPUs on %d x %s (%d GPUs each, %s)\n", c->dp, c->tp, c->pp, r->world,
           r->nodes, r->machine, r->gpus_per_node, r->gpu);
    printf("Batch: %d micro-batches of %d x %d tokens per DP replica per step (1F1B)%s%s\n\n", r->micro_batches,
           c->micro_batch_size, c->model.seq, c->zero ? ", distributed optimizer (ZeRO-1)" : "", c->recompute ? ", activations recomputed" : "");
    printf("  step time          %10.1f ms   (pipeline %.1f, DP exchange %.1f, optimizer %.1f)\n", r->step_ms,
           r->pipeline_ms, r->dp_ms, r->optimizer_ms);
    printf("  one micro-batch    %10.2f ms forward, %.2f ms backward on a middle stage\n", r->fwd_ms, r->bwd_ms);
    printf("  pipeline bubble    %10.1f %%     (1F1B ideal (pp-1)/(m+pp-1) = %.1f %%)\n", 100 * r->bubble,
           100 * r->bubble_ideal);
    printf("  throughput         %10.0f tokens/s, MFU %.1f %%\n", r->tokens_per_s, 100 * r->mfu);
    printf("  memory per GPU     %10s of %s on stage %d: %s\n\n", gib(r->mem.total, a, sizeof a),
           gib(r->gpu_mem, b, sizeof b), r->mem.stage, r->fits ? "fits" : "DOES NOT FIT");
    printf("  %-12s %10s %10s %10s %11s %10s\n", "memory", "weights", "grads", "optimizer", "activations", "transient");
    printf("  %-12s %10s %10s %10s %11s %10s   (%d micro-batches in flight, %.2fB parameters)\n\n", "per GPU",
           gib(r->mem.weights, a, sizeof a), gib(r->mem.grads, b, sizeof b), gib(r->mem.optimizer, d, sizeof d),
           gib(r->mem.activations, e, sizeof e), gib(r->mem.transient, f, sizeof f), r->mem.inflight,
           r->mem.params / 1e9);
    printf("  %-4s %-6s %-28s %11s %8s %-11s %-12s %12s %12s\n", "axis", "group", "collective", "bytes/call",
           "calls", "link", "algorithm", "per call", "per step");
    for (int i = 0; i < MGPU_WHATIF_AXES; i++) {
        const mgpu_whatif_traffic *t = &r->traffic[i];
        char per_call[32];
        snprintf(per_call, sizeof per_call, "%.1f us", t->call_us);
        snprintf(g, sizeof g, "%s", t->group > 1 ? t->collective : "(not split)");
        printf("  %-4s %-6d %-28s %11s %8ld %-11s %-12s %12s %9.1f ms\n", t->axis, t->group, g,
               t->group > 1 ? size_str(t->bytes, a, sizeof a) : "-", t->calls, t->link, t->algo,
               t->group > 1 ? per_call : "-", t->total_ms);
    }
    /* the footer names the links the table shows: SHM inside a pcie-4gpu node, not NVLink */
    const char *inside = NULL, *across = NULL;
    for (int i = 0; i < MGPU_WHATIF_AXES; i++) {
        const mgpu_whatif_traffic *t = &r->traffic[i];
        if (t->group <= 1) continue;
        if (t->nodes > 1 && !across) across = t->link;
        if (t->nodes <= 1 && !inside) inside = t->link;
    }
    printf("\n  links: %s%s%s%s%s; calls per step on the busiest rank.\n", inside ? inside : "", inside ? " inside a node" : "",
           inside && across ? ", " : "", across ? across : "", across ? " across nodes" : "");
}

static json_t *traffic_json(const mgpu_whatif_traffic *t)
{
    return json_pack("{s:s, s:i, s:s, s:f, s:I, s:i, s:s, s:s, s:f, s:f}", "axis", t->axis, "group", t->group,
                     "collective", t->collective, "bytes", t->bytes, "calls", (json_int_t)t->calls, "nodes", t->nodes,
                     "link", t->link, "algo", t->algo, "call_us", t->call_us, "total_ms", t->total_ms);
}

static int print_json(const mgpu_whatif_config *c, const mgpu_whatif_result *r)
{
    json_t *mem = json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:f}", "stage", r->mem.stage, "params",
                            r->mem.params, "weights", r->mem.weights, "grads", r->mem.grads, "optimizer",
                            r->mem.optimizer, "activations", r->mem.activations, "transient", r->mem.transient, "total",
                            r->mem.total, "inflight", r->mem.inflight, "gpu", r->gpu_mem);
    json_t *tr = json_pack("{s:o, s:o, s:o}", "tp", traffic_json(&r->traffic[MGPU_WHATIF_TP]), "pp",
                           traffic_json(&r->traffic[MGPU_WHATIF_PP]), "dp", traffic_json(&r->traffic[MGPU_WHATIF_DP]));
    json_t *o = json_pack("{s:b, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:f}", "timing_only", 1, "machine",
                          r->machine, "gpu", r->gpu, "dp", c->dp, "tp", c->tp, "pp", c->pp, "world", r->world, "nodes",
                          r->nodes, "gpus_per_node", r->gpus_per_node, "micro_batches", r->micro_batches, "zero",
                          c->zero, "params", r->params);
    if (o) json_object_set_new(o, "recompute", json_integer(c->recompute));
    if (!o || !mem || !tr) {
        json_decref(o);
        json_decref(mem);
        json_decref(tr);
        fprintf(stderr, "mgpulab whatif: out of memory\n");
        return 1;
    }
    json_object_set_new(o, "step_ms", json_real(r->step_ms));
    json_object_set_new(o, "pipeline_ms", json_real(r->pipeline_ms));
    json_object_set_new(o, "dp_ms", json_real(r->dp_ms));
    json_object_set_new(o, "optimizer_ms", json_real(r->optimizer_ms));
    json_object_set_new(o, "fwd_ms", json_real(r->fwd_ms));
    json_object_set_new(o, "bwd_ms", json_real(r->bwd_ms));
    json_object_set_new(o, "bubble", json_real(r->bubble));
    json_object_set_new(o, "bubble_ideal", json_real(r->bubble_ideal));
    json_object_set_new(o, "tokens_per_s", json_real(r->tokens_per_s));
    json_object_set_new(o, "mfu", json_real(r->mfu));
    json_object_set_new(o, "fits", json_boolean(r->fits));
    json_object_set_new(o, "memory", mem);
    json_object_set_new(o, "traffic", tr);
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(o);
    if (!s) return 1;
    printf("%s\n", s);
    free(s);
    return 0;
}

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    mgpu_whatif_config c;
    mgpu_whatif_defaults(&c);
    int json = g->json;
    int rc = parse(argc, argv, &c, &json);
    if (rc) return rc;
    if (g->backend.machine) c.machine = g->backend.machine;
    mgpu_whatif_result r;
    if (mgpu_whatif_run(&c, &r) != MGPU_OK) {
        /* a value the model refuses (a layout it cannot split, an unknown
         * machine) is bad usage like a malformed one */
        if (mgpu_error_code() == MGPU_ERR_INVALID) {
            rc = mgpu_cli_usage_error("whatif", "%s", mgpu_error_message());
            mgpu_error_clear();
            return rc;
        }
        return mgpu_cli_error("whatif");
    }
    if (json) return print_json(&c, &r);
    print_text(&c, &r);
    return 0;
}

const mgpu_cmd mgpu_cmd_whatif = {
    .name = "whatif",
    .summary = "one training step at scale (DP x TP x PP, 1F1B), timing-only",
    .usage = usage,
    .options = options,
    .epilog = epilog,
    .run = run,
};
