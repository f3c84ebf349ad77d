/* dev_sim.c - the sim device backend: the GPUs of one host of a modelled
 * machine. Data operations run for real on host memory when they are
 * enqueued; time is virtual: each stream has a clock that the timing model
 * (sim_model.c) advances, events carry it and waits join it. See
 * docs/sim-model.md for the rules. */
#include "dev/sim/sim_ipc.h"
#include "dev/sim/sim_peer.h"
#include "mgpu/clock.h"
#include "mgpu/topo.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The last collectives on a GPU, each a span of modelled time with the SMs
 * its CTAs hold and the HBM bandwidth it moves. A kernel is slowed where it
 * overlaps one; spans older than these are past any kernel still to come
 * in a training step (DDP has a few buckets in flight). */
#define SIM_CONTEND_SPANS 16
/* SMs one NCCL CTA takes from the kernels beside it: a CTA holds its SM for
 * the whole call, and a little more (the SM's share of L2 and of the
 * scheduler). The GPU calibration (tests/gpu/contention: a bf16 GEMM alone
 * and beside a running all_reduce of 16 CTAs on one GPU) measures it as
 * (1 - 1/slowdown) x SMs / CTAs: 1.17 on an H100 (3.132 -> 3.650 ms, 1.165x;
 * docs/gpu-results.md, thirteenth session). */
#define SIM_SMS_PER_CTA 1.17
typedef struct sim_contend_span {
    double t0, t1;
    double sm_share;  /* of the GPU's SMs */
    double hbm_share; /* of its memory bandwidth */
} sim_contend_span;
struct sim_contention {
    sim_contend_span span[SIM_CONTEND_SPANS];
    int next;
};

/* Memory when neither the topology nor the GPU table knows the GPU (an
 * imported XML of an unknown model): an 80 GiB part, said in the docs. */
#define SIM_FALLBACK_MEM_BYTES (80ull << 30)

typedef struct sim_stream_impl { double clock; } sim_stream_impl;
typedef struct sim_event_impl { double t; } sim_event_impl;

static double max2(double a, double b) { return a > b ? a : b; }

/*--- Open and close ----------------------------------------------------*/

/* Which host's GPUs this process sees: MGPU_SIM_HOST, for rank processes of
 * a multi-host machine; host 0 otherwise. */
static mgpu_result sim_host_from_env(const mgpu_topo *t, int *host)
{
    const char *env = getenv("MGPU_SIM_HOST");
    int nhosts = mgpu_topo_host_count(t);
    *host = 0;
    if (!env || !*env) return MGPU_OK;
    char *end = NULL;
    errno = 0;
    long v = strtol(env, &end, 10);
    if (errno || *end || end == env || v < 0 || v >= nhosts)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "MGPU_SIM_HOST='%s' is not a host of the simulated machine '%s', which "
                         "has %d host%s (0..%d)",
                         env, mgpu_topo_machine_name(t), nhosts, nhosts == 1 ? "" : "s", nhosts - 1);
    *host = (int)v;
    return MGPU_OK;
}

static void sim_close(mgpu_backend *be)
{
    sim_state *st = sim_of(be);
    if (!st) return;
    sim_model_free(&st->model);
    sim_registry_free(st);
    free(st->mem_total);
    free(st->mem_used);
    free(st->contend);
    free(st->legacy_clock);
    free(st->horizon);
    free(st->peer_on);
    free(st->busy);
    pthread_mutex_destroy(&st->lock);
    free(st);
    be->impl = NULL;
}

mgpu_result mgpu_backend_config_sim_topo(const mgpu_backend_config *cfg, mgpu_topo **out)
{
    const char *machine = cfg && cfg->machine ? cfg->machine : "dgx-h100";
    *out = NULL;
    mgpu_topo *t = NULL;
    MGPU_CHECK(mgpu_topo_open_machine(machine, &t));
    mgpu_result r = cfg && cfg->fault && *cfg->fault ? mgpu_topo_apply_faults(t, cfg->fault) : MGPU_OK;
    if (r != MGPU_OK) {
        mgpu_topo_free(t);
        return r;
    }
    *out = t;
    return MGPU_OK;
}

static mgpu_result sim_open(mgpu_backend *be, const mgpu_backend_config *cfg)
{
    MGPU_CHECK(mgpu_backend_config_sim_topo(cfg, &be->topo));
    int host;
    MGPU_CHECK(sim_host_from_env(be->topo, &host));

    sim_state *st = calloc(1, sizeof *st);
    if (!st) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory opening the sim backend");
    pthread_mutex_init(&st->lock, NULL);
    be->impl = st; /* from here on, dev.c calls sim_close on failure */
    st->host = host;
    /* --fault straggler:R: the process running rank R does all its device
     * work this many times slower, as a rank on a throttled or overloaded
     * GPU would (its collectives: comm_sim.c) */
    st->slowdown = mgpu_topo_straggler_factor(be->topo);
    MGPU_CHECK(sim_model_init(&st->model, be->topo, host));
    int n = st->ndev = st->model.ndev;
    st->nres = sim_model_res_count(&st->model);
    st->mem_total = calloc((size_t)n, sizeof *st->mem_total);
    st->mem_used = calloc((size_t)n, sizeof *st->mem_used);
    st->legacy_clock = calloc((size_t)n, sizeof *st->legacy_clock);
    st->horizon = calloc((size_t)n, sizeof *st->horizon);
    st->peer_on = calloc((size_t)n * (size_t)n, 1);
    st->busy = calloc((size_t)st->nres, sizeof *st->busy);
    st->contend = calloc((size_t)n + 1, sizeof *st->contend);
    if (!st->mem_total || !st->mem_used || !st->legacy_clock || !st->horizon || !st->peer_on || !st->busy ||
        !st->contend)
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory opening the sim backend");
    for (int d = 0; d < n; d++) {
        const mgpu_topo_gpu *g = mgpu_topo_gpu_at(be->topo, st->model.gpu[d].topo_index);
        const mgpu_gpu_model *gm = mgpu_gpu_model_by_name(g->name);
        st->mem_total[d] = g->mem_bytes ? g->mem_bytes : gm ? gm->mem_bytes : SIM_FALLBACK_MEM_BYTES;
    }
    return MGPU_OK;
}

/*--- Devices -----------------------------------------------------------*/

static mgpu_result sim_device_count(mgpu_backend *be, int *count)
{
    *count = sim_of(be)->ndev;
    return MGPU_OK;
}

static mgpu_result sim_device_info(mgpu_backend *be, int dev, mgpu_device_info *out)
{
    sim_state *st = sim_of(be);
    const mgpu_topo_gpu *g = mgpu_topo_gpu_at(be->topo, st->model.gpu[dev].topo_index);
    const mgpu_gpu_model *gm = mgpu_gpu_model_by_name(g->name);
    out->index = dev;
    snprintf(out->name, sizeof out->name, "%s", g->name[0] ? g->name : gm ? gm->name : "simulated GPU");
    snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%s", g->busid);
    for (char *p = out->pci_bus_id; *p; p++)
        if (*p >= 'A' && *p <= 'F') *p = (char)(*p - 'A' + 'a');
    out->uuid[0] = '\0'; /* a simulated GPU has no UUID; "" means unknown */
    out->total_mem = st->mem_total[dev];
    out->sm_count = gm ? gm->sm_count : 0;
    int sm = g->sm ? g->sm : gm ? gm->sm : 0;
    out->cc_major = sm / 10;
    out->cc_minor = sm % 10;
    out->numa_node = g->numa;
    /* deviceQuery reports 3 copy engines on A100/H100-class parts, 2 before. */
    out->async_engines = sm >= 80 ? 3 : 2;
    out->can_map_host_memory = 1;
    out->unified_addressing = 1;
    snprintf(out->host, sizeof out->host, "SIMULATED-node%d", g->host); /* as sim_nccl_log.c names it */
    return MGPU_OK;
}

static mgpu_result sim_mem_info(mgpu_backend *be, int dev, uint64_t *free_b, uint64_t *total_b)
{
    sim_state *st = sim_of(be);
    pthread_mutex_lock(&st->lock);
    *total_b = st->mem_total[dev];
    *free_b = st->mem_total[dev] - st->mem_used[dev];
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}

/* The host waits for all work on `dev` (cudaDeviceSynchronize). */
static mgpu_result sim_device_synchronize(mgpu_backend *be, int dev)
{
    sim_state *st = sim_of(be);
    pthread_mutex_lock(&st->lock);
    st->host_ns = max2(st->host_ns, st->horizon[dev]);
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}

/*--- Memory ------------------------------------------------------------*/

static mgpu_result sim_mem_alloc(mgpu_backend *be, mgpu_buffer *buf)
{
    sim_state *st = sim_of(be);
    pthread_mutex_lock(&st->lock);
    mgpu_result r = sim_mem_alloc_locked(st, buf);
    pthread_mutex_unlock(&st->lock);
    return r;
}

/* cudaFree synchronises the device first: a hidden host sync the sim keeps,
 * so "free in a loop" costs what it costs on a GPU. */
static void sim_mem_free(mgpu_backend *be, mgpu_buffer *buf)
{
    sim_state *st = sim_of(be);
    pthread_mutex_lock(&st->lock);
    for (int d = 0; d < st->ndev; d++) st->host_ns = max2(st->host_ns, st->horizon[d]);
    sim_mem_free_locked(st, buf);
    pthread_mutex_unlock(&st->lock);
}

static mgpu_result sim_pointer_attributes(mgpu_backend *be, const void *ptr, mgpu_ptr_attr *out)
{
    sim_state *st = sim_of(be);
    pthread_mutex_lock(&st->lock);
    sim_pointer_attributes_locked(st, ptr, out);
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}

/* The sim's device memory is host memory. */
static void *sim_host_view(mgpu_buffer *buf) { return buf->ptr; }

/*--- Virtual time ------------------------------------------------------*
 * A stream's clock is when its last operation ends. All handles of a
 * device's legacy default stream share one clock (there is one such stream
 * per device, so work on it serialises, which is the lab 9 pitfall); the
 * streams mgpu_stream_create makes otherwise are non-blocking (dev.h) and
 * independent. Nothing starts before the host enqueued it (host_ns), and
 * synchronous calls move host_ns forward to what they waited for. */

static double *clock_of(sim_state *st, mgpu_stream *s)
{
    if (s->legacy_default) return &st->legacy_clock[s->device];
    return &((sim_stream_impl *)s->impl)->clock;
}

static double ready_of(sim_state *st, mgpu_stream *s) { return max2(*clock_of(st, s), st->host_ns); }

/* Run one priced operation on `s`: it starts when the stream and every
 * resource it uses are free, so concurrent copies on one link serialise
 * (each at full speed: the same aggregate as sharing the link). */
static double run_op(sim_state *st, mgpu_stream *s, const sim_cost *c, double bytes)
{
    double start = ready_of(st, s);
    for (int i = 0; i < c->nres; i++) start = max2(start, st->busy[c->res[i]]);
    double end = start + sim_cost_ns(c, bytes) * st->slowdown;
    *clock_of(st, s) = end;
    for (int i = 0; i < c->nres; i++) st->busy[c->res[i]] = end;
    st->horizon[s->device] = max2(st->horizon[s->device], end);
    return end;
}

double sim_run_priced(sim_state *st, mgpu_stream *s, const sim_cost *c, double bytes)
{
    return run_op(st, s, c, bytes);
}

/*--- Collectives compete with compute ------------------------------------*/

static mgpu_result sim_stream_model_contend(mgpu_stream *s, double t0, double t1, int ctas, double hbm_gbs)
{
    sim_state *st = sim_of(s->be);
    if (t1 <= t0 || ctas < 0) return MGPU_OK;
    pthread_mutex_lock(&st->lock);
    const sim_model_gpu *g = &st->model.gpu[s->device];
    struct sim_contention *c = &st->contend[s->device];
    sim_contend_span *sp = &c->span[c->next++ % SIM_CONTEND_SPANS];
    sp->t0 = t0;
    sp->t1 = t1;
    /* never the whole GPU: NCCL's CTAs leave SMs to the kernels beside them */
    sp->sm_share = g->sms > 0 ? ctas * SIM_SMS_PER_CTA / g->sms : 0;
    if (sp->sm_share > 0.5) sp->sm_share = 0.5;
    sp->hbm_share = g->hbm_gbs > 0 ? hbm_gbs / g->hbm_gbs : 0;
    if (sp->hbm_share > 0.5) sp->hbm_share = 0.5;
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}

/* How much longer a kernel runs beside a collective: its FLOP time on the
 * SMs the collective leaves, its byte time on the bandwidth it leaves. */
static double contend_factor(const sim_contend_span *sp, double floor_ns, double t_flops, double t_bytes)
{
    double alone = floor_ns + (t_flops > t_bytes ? t_flops : t_bytes);
    double f = t_flops / (1.0 - sp->sm_share), b = t_bytes / (1.0 - sp->hbm_share);
    return alone > 0 ? (floor_ns + (f > b ? f : b)) / alone : 1.0;
}

double sim_run_compute(sim_state *st, mgpu_stream *s, const sim_cost *c, double floor_ns, double t_flops,
                       double t_bytes)
{
    double start = ready_of(st, s);
    for (int i = 0; i < c->nres; i++) start = max2(start, st->busy[c->res[i]]);
    double work = sim_cost_ns(c, 0) * st->slowdown, now = start; /* work: ns of the kernel alone */
    const struct sim_contention *ct = &st->contend[s->device];
    /* Walk the spans in time order from the start: inside a span the kernel
     * progresses 1/factor as fast. Spans may overlap (two communicators):
     * the later-starting one wins there, a simplification. */
    for (;;) {
        const sim_contend_span *next = NULL;
        for (int i = 0; i < SIM_CONTEND_SPANS; i++) {
            const sim_contend_span *sp = &ct->span[i];
            if (sp->t1 <= now || sp->t1 <= sp->t0) continue;
            if (!next || sp->t0 < next->t0) next = sp;
        }
        if (!next) break;
        if (next->t0 > now) {
            if (now + work <= next->t0) break;
            work -= next->t0 - now;
            now = next->t0;
        }
        double f = contend_factor(next, floor_ns, t_flops, t_bytes), room = (next->t1 - now) / f;
        if (work <= room) {
            now += work * f;
            work = 0;
            break;
        }
        work -= room;
        now = next->t1;
    }
    double end = now + work;
    *clock_of(st, s) = end;
    for (int i = 0; i < c->nres; i++) st->busy[c->res[i]] = end;
    st->horizon[s->device] = max2(st->horizon[s->device], end);
    return end;
}

/*--- Streams, events, gates -------------------------------------------*/

static mgpu_result sim_stream_create(mgpu_backend *be, mgpu_stream *s)
{
    sim_state *st = sim_of(be);
    sim_stream_impl *si = calloc(1, sizeof *si);
    if (!si) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory creating a stream");
    pthread_mutex_lock(&st->lock);
    si->clock = st->host_ns; /* a new stream is idle from now on */
    pthread_mutex_unlock(&st->lock);
    s->impl = si;
    return MGPU_OK;
}

static void sim_stream_destroy(mgpu_backend *be, mgpu_stream *s)
{
    (void)be;
    free(s->impl);
    s->impl = NULL;
}

static mgpu_result sim_stream_synchronize(mgpu_stream *s)
{
    sim_state *st = sim_of(s->be);
    pthread_mutex_lock(&st->lock);
    st->host_ns = max2(st->host_ns, *clock_of(st, s));
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}

/* The work ran at enqueue, so a query always says done; the host that saw
 * it done has waited until then, as a polling loop would. */
static mgpu_result sim_stream_query(mgpu_stream *s, int *done)
{
    MGPU_CHECK(sim_stream_synchronize(s));
    *done = 1;
    return MGPU_OK;
}

static void *sim_stream_native(mgpu_stream *s)
{
    (void)s;
    return NULL;
}

static mgpu_result sim_stream_model_time(mgpu_stream *s, double *ns)
{
    sim_state *st = sim_of(s->be);
    pthread_mutex_lock(&st->lock);
    *ns = ready_of(st, s);
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}

/* The sim communicator's hook: a collective occupies the stream until `ns`
 * (its modelled end, after the last rank arrived). */
static mgpu_result sim_stream_model_advance(mgpu_stream *s, double ns)
{
    sim_state *st = sim_of(s->be);
    pthread_mutex_lock(&st->lock);
    double *c = clock_of(st, s);
    *c = max2(*c, ns);
    st->horizon[s->device] = max2(st->horizon[s->device], *c);
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}

static mgpu_result sim_event_create(mgpu_backend *be, mgpu_event *e)
{
    (void)be;
    sim_event_impl *ei = calloc(1, sizeof *ei);
    if (!ei) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory creating an event");
    e->impl = ei;
    return MGPU_OK;
}

static void sim_event_destroy(mgpu_backend *be, mgpu_event *e)
{
    (void)be;
    free(e->impl);
    e->impl = NULL;
}

static mgpu_result sim_event_record(mgpu_event *e, mgpu_stream *s)
{
    sim_state *st = sim_of(s->be);
    pthread_mutex_lock(&st->lock);
    ((sim_event_impl *)e->impl)->t = ready_of(st, s);
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}

/* A wait on an event never recorded is a no-op, as in CUDA. */
static mgpu_result sim_stream_wait_event(mgpu_stream *s, mgpu_event *e)
{
    sim_state *st = sim_of(s->be);
    if (!e->recorded) return MGPU_OK;
    pthread_mutex_lock(&st->lock);
    double *clk = clock_of(st, s);
    *clk = max2(*clk, ((sim_event_impl *)e->impl)->t);
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}

static mgpu_result sim_event_synchronize(mgpu_event *e)
{
    sim_state *st = sim_of(e->be);
    if (!e->recorded) return MGPU_OK;
    pthread_mutex_lock(&st->lock);
    st->host_ns = max2(st->host_ns, ((sim_event_impl *)e->impl)->t);
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}

static mgpu_result sim_event_query(mgpu_event *e, int *done)
{
    MGPU_CHECK(sim_event_synchronize(e));
    *done = 1;
    return MGPU_OK;
}

static mgpu_result sim_event_elapsed_ms(mgpu_event *start, mgpu_event *end, double *ms)
{
    *ms = (((sim_event_impl *)end->impl)->t - ((sim_event_impl *)start->impl)->t) / 1e6;
    return MGPU_OK;
}

/* The sim has no launch latency to hide: holding a stream costs nothing in
 * virtual time, and the copies queued behind the gate start back to back. */
static mgpu_result sim_gate_hold(mgpu_stream *s, double timeout_ms, mgpu_gate *g)
{
    (void)s, (void)timeout_ms;
    g->impl = NULL;
    return MGPU_OK;
}

static mgpu_result sim_gate_open(mgpu_gate *g)
{
    (void)g;
    return MGPU_OK;
}

/*--- Copies ------------------------------------------------------------*/

static sim_place place_of(const mgpu_buffer *b)
{
    sim_place p = {b->kind == MGPU_MEM_DEVICE ? b->device : -1, b->kind};
    return p;
}

/* A kernel on `exec` may touch its own memory, pinned host memory, and a
 * peer's memory only once peer access exec -> peer is enabled (on a GPU the
 * kernel would fault with an illegal address). */
static mgpu_result check_reach(sim_state *st, int exec, const mgpu_buffer *b, const char *what,
                               const char *alternative)
{
    MGPU_CHECK(sim_ipc_check_live(b));
    if (b->kind != MGPU_MEM_DEVICE || b->device == exec) return MGPU_OK;
    if (st->peer_on[exec * st->ndev + b->device] || sim_ipc_reachable(b, exec)) return MGPU_OK;
    return mgpu_fail(MGPU_ERR_PEER,
                     "%s running on GPU %d touches memory of GPU %d, but peer access from GPU %d to "
                     "GPU %d is not enabled; enable it first with mgpu_peer_enable(%d, %d) "
                     "(cudaDeviceEnablePeerAccess)%s",
                     what, exec, b->device, exec, b->device, exec, b->device, alternative);
}

/* The bandwidth pane's modelled load: the copy's modelled rate on every
 * link direction it occupies (resource ids are dev * SIM_RES_KINDS + kind,
 * sim_model.c), shown for the wall time the copy took, at least 0.3 s. */
static void publish_copy(sim_state *st, const sim_cost *c, double bytes, uint64_t wall_ns)
{
    double ns = sim_cost_ns(c, bytes), secs = (double)wall_ns / 1e9;
    if (!(ns > 0) || !(bytes > 0)) return;
    double bps = bytes / ns * 1e9;
    if (secs < 0.3) secs = 0.3;
    for (int i = 0; i < c->nres; i++) {
        int dev = c->res[i] / SIM_RES_KINDS, kind = c->res[i] % SIM_RES_KINDS;
        if (dev >= st->ndev) continue; /* host memory */
        int g = st->model.gpu[dev].topo_index;
        if (kind == SIM_RES_PCIE_H2D) mgpu_link_load(g, MGPU_LINK_PCIE, 0, bps, secs);
        else if (kind == SIM_RES_PCIE_D2H) mgpu_link_load(g, MGPU_LINK_PCIE, bps, 0, secs);
        else if (kind == SIM_RES_NVL_TX) mgpu_link_load(g, MGPU_LINK_NVLINK, bps, 0, secs);
        else if (kind == SIM_RES_NVL_RX) mgpu_link_load(g, MGPU_LINK_NVLINK, 0, bps, secs);
    }
}

static mgpu_result sim_copy(mgpu_stream *s, mgpu_buffer *dst, size_t dst_off, const mgpu_buffer *src,
                            size_t src_off, size_t bytes, mgpu_copy_engine how)
{
    sim_state *st = sim_of(s->be);
    mgpu_result r = MGPU_OK;
    pthread_mutex_lock(&st->lock);
    int sm = how == MGPU_COPY_SM;
    if (sm) {
        MGPU_CHECKGOTO(check_reach(st, s->device, src, "an SM (kernel) copy", ", or use a copy-engine copy"), r, out);
        MGPU_CHECKGOTO(check_reach(st, s->device, dst, "an SM (kernel) copy", ", or use a copy-engine copy"), r, out);
    } else {
        MGPU_CHECKGOTO(sim_ipc_check_live(src), r, out);
        MGPU_CHECKGOTO(sim_ipc_check_live(dst), r, out);
    }
    sim_place dp = place_of(dst), sp = place_of(src);
    /* A copy engine copy between two GPUs goes direct when either side has
     * mapped the other; otherwise the driver stages it through host memory. */
    int direct = sm || (dp.dev >= 0 && sp.dev >= 0 &&
                        (st->peer_on[dp.dev * st->ndev + sp.dev] || st->peer_on[sp.dev * st->ndev + dp.dev]));
    sim_cost c;
    sim_model_copy(&st->model, dp, sp, direct, sm, &c);
    uint64_t t0 = mgpu_now_ns();
    /* phantom: the modelled time, no data (dev.c refused phantom -> real) */
    if (!dst->phantom) memmove((char *)dst->ptr + dst_off, (const char *)src->ptr + src_off, bytes);
    double end = run_op(st, s, &c, (double)bytes);
    publish_copy(st, &c, (double)bytes, mgpu_now_ns() - t0);
    /* Copies from or to pageable memory return only when done (CUDA stages
     * them through a pinned buffer with the host waiting): a hidden sync. */
    if (dst->kind == MGPU_MEM_PAGEABLE || src->kind == MGPU_MEM_PAGEABLE) st->host_ns = max2(st->host_ns, end);
out:
    pthread_mutex_unlock(&st->lock);
    return r;
}

static mgpu_result sim_memory_latency(mgpu_stream *s, mgpu_buffer *buf, size_t bytes, uint64_t accesses,
                                      double *ns)
{
    (void)bytes; /* the model has one latency per memory, whatever the ring size */
    sim_state *st = sim_of(s->be);
    mgpu_result r = MGPU_OK;
    pthread_mutex_lock(&st->lock);
    MGPU_CHECKGOTO(check_reach(st, s->device, buf, "a pointer-chase kernel", ""), r, out);
    *ns = sim_model_load_latency_ns(&st->model, s->device, place_of(buf));
    /* The chase is synchronous: the stream and then the host wait for it. */
    sim_cost c = {.latency_ns = *ns * (double)accesses, .bw_gbs = 0, .nres = 0, .route = "loads"};
    st->host_ns = max2(st->host_ns, run_op(st, s, &c, 0));
out:
    pthread_mutex_unlock(&st->lock);
    return r;
}

/*--- Fill and checksum -------------------------------------------------*
 * The formulas are dtype.h's, shared with the cuda backend's kernels, so
 * both produce the same bits. Pageable buffers are filled by the CPU
 * (after the stream's earlier work, with the host waiting). */

/* A constant fill: the element's bytes once, then copies of a small block
 * that stays in cache (the bench clears 256 MiB outputs on every rank). */
static void fill_const(void *base, mgpu_dtype dtype, size_t count, const mgpu_fill_spec *spec)
{
    enum { BLOCK = 4096 };
    size_t ts = mgpu_dtype_size(dtype), first = count < BLOCK ? count : BLOCK;
    for (size_t i = 0; i < first; i++)
        mgpu_fill_store(base, dtype, i, mgpu_fill_value(dtype, spec->kind, spec->seed, spec->value, i));
    const unsigned char *b = base;
    size_t same = 1;
    while (same < ts && b[same] == b[0]) same++;
    if (same == ts) { /* every byte alike: memset writes without reading first */
        memset(base, b[0], count * ts);
        return;
    }
    for (size_t done = first; done < count; done += first) {
        size_t m = count - done < first ? count - done : first;
        memcpy((char *)base + done * ts, base, m * ts);
    }
}

static mgpu_result sim_fill(mgpu_stream *s, mgpu_buffer *buf, size_t off, size_t count, mgpu_dtype dtype,
                            const mgpu_fill_spec *spec)
{
    sim_state *st = sim_of(s->be);
    mgpu_result r = MGPU_OK;
    pthread_mutex_lock(&st->lock);
    MGPU_CHECKGOTO(check_reach(st, s->device, buf, "a fill kernel", ""), r, out);
    void *base = (char *)buf->ptr + off;
    if (buf->phantom) { /* the kernel's modelled time, no values */
    } else if (spec->kind == MGPU_FILL_CONST) fill_const(base, dtype, count, spec);
    else
        for (size_t i = 0; i < count; i++)
            mgpu_fill_store(base, dtype, i, mgpu_fill_value(dtype, spec->kind, spec->seed, spec->value, i));
    sim_cost c;
    sim_model_touch(&st->model, s->device, place_of(buf), 1, &c);
    double end = run_op(st, s, &c, (double)count * (double)mgpu_dtype_size(dtype));
    /* A pageable fill is done by the host after the stream's earlier work,
     * as the cuda backend does it: the host waits. */
    if (buf->kind == MGPU_MEM_PAGEABLE) st->host_ns = max2(st->host_ns, end);
out:
    pthread_mutex_unlock(&st->lock);
    return r;
}

static mgpu_result sim_checksum(mgpu_stream *s, const mgpu_buffer *buf, size_t off, size_t count,
                                mgpu_dtype dtype, uint64_t *outv)
{
    sim_state *st = sim_of(s->be);
    mgpu_result r = MGPU_OK;
    pthread_mutex_lock(&st->lock);
    MGPU_CHECKGOTO(check_reach(st, s->device, buf, "a checksum kernel", ""), r, out);
    const void *base = (const char *)buf->ptr + off;
    uint64_t sum = 0;
    for (size_t i = 0; i < count; i++) sum += mgpu_checksum_term(mgpu_elem_bits(base, dtype, i), i);
    *outv = sum;
    sim_cost c;
    sim_model_touch(&st->model, s->device, place_of(buf), 0, &c);
    /* Synchronous: the host waits for the reduction. */
    st->host_ns = max2(st->host_ns, run_op(st, s, &c, (double)count * (double)mgpu_dtype_size(dtype)));
out:
    pthread_mutex_unlock(&st->lock);
    return r;
}

/*--- The backend -------------------------------------------------------*/

const struct mgpu_dev_ops mgpu_dev_sim_ops = {
    .name = "sim",
    .open = sim_open,
    .close = sim_close,
    .device_count = sim_device_count,
    .device_info = sim_device_info,
    .mem_info = sim_mem_info,
    .device_synchronize = sim_device_synchronize,
    .mem_alloc = sim_mem_alloc,
    .mem_free = sim_mem_free,
    .pointer_attributes = sim_pointer_attributes,
    .stream_create = sim_stream_create,
    .stream_destroy = sim_stream_destroy,
    .stream_synchronize = sim_stream_synchronize,
    .stream_query = sim_stream_query,
    .stream_native = sim_stream_native,
    .stream_model_time = sim_stream_model_time,
    .stream_model_advance = sim_stream_model_advance,
    .stream_model_contend = sim_stream_model_contend,
    .event_create = sim_event_create,
    .event_destroy = sim_event_destroy,
    .event_record = sim_event_record,
    .stream_wait_event = sim_stream_wait_event,
    .event_synchronize = sim_event_synchronize,
    .event_query = sim_event_query,
    .event_elapsed_ms = sim_event_elapsed_ms,
    .gate_hold = sim_gate_hold,
    .gate_open = sim_gate_open,
    .copy = sim_copy,
    .memory_latency = sim_memory_latency,
    .peer_can_access = sim_peer_can_access,
    .peer_attributes = sim_peer_attributes,
    .peer_enable = sim_peer_enable,
    .peer_disable = sim_peer_disable,
    .fill = sim_fill,
    .checksum = sim_checksum,
    .peer_enabled = sim_peer_enabled,
    .ipc_export = sim_ipc_export,  /* sim_ipc.c */
    .ipc_revoke = sim_ipc_revoke,
    .ipc_open = sim_ipc_open,
    .ipc_close = sim_ipc_close,
    .host_view = sim_host_view,
    .vmm_reserve = sim_vmm_reserve, /* sim_vmm.c */
    .vmm_map = sim_vmm_map,
    .vmm_unmap = sim_vmm_unmap,
    .vmm_release = sim_vmm_release,
    .vmm_granularity = sim_vmm_granularity,
    .nn = &mgpu_sim_nn_ops, /* sim_nn.c */
};
