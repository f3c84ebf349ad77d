/* comm_sim_p2p.c - send/recv over the pair mailboxes, and group calls: what
 * is issued between group_start and group_end runs at group_end, the
 * sends and receives together, so cyclic exchanges cannot deadlock. */
#include "comm/comm_args.h"
#include <stdlib.h>
#include <string.h>
#include "mgpu/clock.h"
#include "sim_comm.h"

typedef struct queued {
    mgpu_comm *c;
    mgpu_coll_args a;
    mgpu_stream *s;
} queued;

static _Thread_local int g_depth;
static _Thread_local queued *g_q;
static _Thread_local int g_n, g_cap;

int sim_group_depth(void) { return g_depth; }

mgpu_result sim_group_start(void)
{
    g_depth = 1; /* comm.c counts nesting and calls us at 0 -> 1 only */
    return MGPU_OK;
}

mgpu_result sim_group_queue(mgpu_comm *c, const mgpu_coll_args *a, mgpu_stream *s)
{
    if (g_n == g_cap) {
        int cap = g_cap ? 2 * g_cap : 16;
        queued *q = realloc(g_q, sizeof *q * (size_t)cap);
        if (!q) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory queueing a grouped operation");
        g_q = q;
        g_cap = cap;
    }
    g_q[g_n].c = c;
    g_q[g_n].a = *a;
    g_q[g_n].s = s;
    g_n++;
    return MGPU_OK;
}

/* The model's time for `bytes` between this rank's GPU and the peer's:
 * *lat_ns of it is the fixed latency, the rest the bytes on the wire. */
static double p2p_ns(sim_comm *sc, int me, int peer, size_t bytes, double *lat_ns)
{
    int g[2] = {sc->gpu_of_rank[me], sc->gpu_of_rank[peer]};
    mgpu_coll_prediction p;
    *lat_ns = 0;
    if (mgpu_coll_predict(sc->topo, MGPU_COLL_SEND, bytes, 2, g, &p) != MGPU_OK) return 0;
    /* the straggler fault's rank is slower at both ends */
    double ns = p.time_us * 1000.0 * sc->straggler, lat = p.latency_us * 1000.0 * sc->straggler;
    *lat_ns = lat < ns ? lat : ns;
    return ns;
}

/* One GPU's way out (or in) shared by the transfers of a group: flow i is
 * ready at ready[i] and needs work[i] ns of the link alone; while k flows
 * are under way each gets 1/k of it (a send to 7 peers at once takes 7
 * times one send's wire time: the root's links carry every copy). A
 * NVSwitch GPU's pair rate is its whole NVLink bandwidth, a PCIe GPU's its
 * slot's, so every transfer of one GPU in one direction shares it.
 * finish[i] out. O(n^2), n the group's transfers. */
static void share_link(const double *ready, const double *work, double *finish, int n)
{
    double *left = malloc(sizeof *left * (size_t)n);
    if (!left) { /* no memory to share: each alone */
        for (int i = 0; i < n; i++) finish[i] = ready[i] + work[i];
        return;
    }
    int done = 0;
    double t = 1e300;
    for (int i = 0; i < n; i++) {
        left[i] = work[i];
        finish[i] = -1;
        if (ready[i] < t) t = ready[i];
    }
    while (done < n) {
        int k = 0;
        double next_arrival = 1e300, least = 1e300;
        for (int i = 0; i < n; i++) {
            if (finish[i] >= 0) continue;
            if (ready[i] <= t) {
                k++;
                if (left[i] < least) least = left[i];
            } else if (ready[i] < next_arrival) {
                next_arrival = ready[i];
            }
        }
        if (k == 0) {
            t = next_arrival;
            continue;
        }
        double dt = least * k;
        if (t + dt > next_arrival) dt = next_arrival - t;
        for (int i = 0; i < n; i++) {
            if (finish[i] >= 0 || ready[i] > t) continue;
            left[i] -= dt / k;
            if (left[i] <= least * 1e-12 || left[i] <= 0) {
                finish[i] = t + dt;
                done++;
            }
        }
        t += dt;
    }
    free(left);
}

/* Every transfer of this rank in one direction (SIM_SEND or SIM_RECV)
 * shares its link: end[i] = when transfer i's bytes are through. */
static mgpu_result share_direction(const sim_xfer *f, const double *ready, const double *ns, const double *lat,
                                   int n, int kind, double *end)
{
    double *r = malloc(sizeof *r * (size_t)n * 3);
    int *at = malloc(sizeof *at * (size_t)n);
    if (!r || !at) {
        free(r);
        free(at);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory timing a group of sends/receives");
    }
    double *w = r + n, *fin = r + 2 * n;
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (f[i].kind != kind) continue;
        at[k] = i;
        r[k] = ready[i] + lat[i];
        w[k] = ns[i] - lat[i];
        k++;
    }
    if (k) share_link(r, w, fin, k);
    for (int j = 0; j < k; j++) end[at[j]] = fin[j];
    free(r);
    free(at);
    return MGPU_OK;
}

/* The bandwidth pane's modelled load: a send is traffic out of this rank's
 * GPU, a receive into it, at bytes / modelled time (sim_telemetry.c says
 * over which links); shown for the call's wall time, at least 0.3 s. */
static void publish_p2p(sim_comm *sc, int me, const sim_xfer *f, size_t bytes, double ns, uint64_t t0)
{
    if (!(ns > 0) || !bytes) return;
    double bps = (double)bytes / ns * 1e9, secs = (double)(mgpu_now_ns() - t0) / 1e9;
    if (secs < 0.3) secs = 0.3;
    sim_publish_p2p(sc, sc->gpu_of_rank[me], sc->gpu_of_rank[f->peer], f->kind == SIM_SEND, bps, secs);
}

/* Run the send/recv entries q[0..n) of one communicator together. A send's
 * message carries its stream's time; a receive ends at max(its own, the
 * sender's) + the transfer; a send ends at its own start + the transfer. */
static const unsigned char phantom_token = 0x50;
static _Thread_local unsigned char phantom_sink[64];

static mgpu_result run_batch(mgpu_comm *c, sim_comm *sc, const queued *q, int n)
{
    uint64_t wall0 = mgpu_now_ns();
    sim_xfer *f = calloc((size_t)n, sizeof *f);
    double *t0 = calloc((size_t)n * 5, sizeof *t0);
    size_t *model_bytes = calloc((size_t)n, sizeof *model_bytes);
    mgpu_result r = MGPU_OK;
    if (!f || !t0 || !model_bytes) {
        r = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory for send/recv on '%s'", c->name);
        goto out;
    }
    /* per transfer: the model's time alone, its latency, its ready time, its end */
    double *ns = t0 + n, *lat = t0 + 2 * (size_t)n, *ready = t0 + 3 * (size_t)n, *end = t0 + 4 * (size_t)n;
    for (int i = 0; i < n; i++) {
        const mgpu_coll_args *a = &q[i].a;
        size_t bytes = a->count * mgpu_dtype_size(a->dtype);
        if (a->root < 0 || a->root >= c->size) {
            r = mgpu_fail(MGPU_ERR_INVALID, "%s on '%s': peer %d is not a rank of this %d-rank communicator",
                          a->op == MGPU_COLL_SEND ? "send" : "recv", c->name, a->root, c->size);
            goto out;
        }
        MGPU_CHECKGOTO(mgpu_stream_model_time(q[i].s, &t0[i]), r, out);
        /* Phantom: one token byte carries the handshake and the sender's
         * time stamp; the modelled time is the full size's. (Both ends must
         * be phantom: a real receiver waits for bytes that never come, as
         * NCCL would with mismatched sizes, until the watchdog.) */
        int phantom = mgpu_coll_phantom(a);
        model_bytes[i] = bytes;
        if (a->op == MGPU_COLL_SEND) {
            f[i].kind = SIM_SEND;
            f[i].src = phantom ? &phantom_token : (const unsigned char *)a->send->ptr + a->send_off;
            f[i].model_ns = t0[i];
        } else {
            f[i].kind = SIM_RECV;
            f[i].dst = phantom ? &phantom_sink[i % 64] : (unsigned char *)a->recv->ptr + a->recv_off;
        }
        f[i].peer = a->root;
        f[i].bytes = phantom && bytes ? 1 : bytes;
        ns[i] = bytes ? p2p_ns(sc, c->rank, a->root, bytes, &lat[i]) : 0;
    }
    /* The sends share this GPU's way out: each message carries the time
     * its bytes would have left had it been alone, so that the receiver's
     * max(its own start, the stamp) + the pair's time is when they arrive. */
    MGPU_CHECKGOTO(share_direction(f, t0, ns, lat, n, SIM_SEND, end), r, out);
    for (int i = 0; i < n; i++)
        if (f[i].kind == SIM_SEND) f[i].model_ns = end[i] - ns[i];
    sim_ctx x;
    char what[64];
    if (n > 1)
        snprintf(what, sizeof what, "group of %d sends/receives", n);
    else
        snprintf(what, sizeof what, "%s rank %d", q[0].a.op == MGPU_COLL_SEND ? "send to" : "recv from", q[0].a.root);
    sim_comm_ctx(c, sc, what, &x);
    MGPU_CHECKGOTO(sim_run(&x, f, n), r, out);
    /* the receives share its way in, each from when its message can start */
    for (int i = 0; i < n; i++) {
        ready[i] = f[i].kind == SIM_SEND ? end[i] - ns[i] : t0[i];
        if (f[i].kind == SIM_RECV && f[i].bytes && f[i].model_ns > ready[i]) ready[i] = f[i].model_ns;
    }
    MGPU_CHECKGOTO(share_direction(f, ready, ns, lat, n, SIM_RECV, end), r, out);
    for (int i = 0; i < n; i++) {
        MGPU_CHECKGOTO(mgpu_stream_model_advance(q[i].s, ns[i] > 0 ? end[i] : ready[i]), r, out);
        publish_p2p(sc, c->rank, &f[i], model_bytes[i], end[i] - ready[i], wall0); /* phantom: the modelled size */
    }
out:
    free(f);
    free(t0);
    free(model_bytes);
    return r;
}

mgpu_result sim_p2p_run(mgpu_comm *c, sim_comm *sc, const mgpu_coll_args *a, mgpu_stream *s, int single)
{
    (void)single;
    queued q = {c, *a, s};
    MGPU_CHECK(run_batch(c, sc, &q, 1));
    return MGPU_OK;
}

/* Collectives first, in issue order (every rank issued them in the same
 * order); then each communicator's sends and receives as one batch. */
mgpu_result sim_group_end(void)
{
    g_depth = 0;
    queued *q = g_q;
    int n = g_n;
    g_q = NULL;
    g_n = g_cap = 0;
    mgpu_result r = MGPU_OK;
    for (int i = 0; i < n && r == MGPU_OK; i++) {
        if (q[i].a.op == MGPU_COLL_SEND || q[i].a.op == MGPU_COLL_RECV) continue;
        r = sim_comm_collective_now(q[i].c, &q[i].a, q[i].s);
    }
    queued *batch = n > 0 ? malloc(sizeof *batch * (size_t)(unsigned)n) : NULL;
    if (n && !batch && r == MGPU_OK) r = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory running a group");
    for (int i = 0; i < n && r == MGPU_OK; i++) {
        if (!q[i].c || (q[i].a.op != MGPU_COLL_SEND && q[i].a.op != MGPU_COLL_RECV)) continue;
        mgpu_comm *c = q[i].c;
        int m = 0;
        for (int j = i; j < n; j++)
            if (q[j].c == c && (q[j].a.op == MGPU_COLL_SEND || q[j].a.op == MGPU_COLL_RECV)) {
                batch[m++] = q[j];
                if (j > i) q[j].c = NULL; /* taken */
            }
        sim_comm *sc;
        r = sim_comm_enter(c, &sc);
        if (r != MGPU_OK) break;
        r = run_batch(c, sc, batch, m);
        sim_comm_leave(sc);
    }
    free(batch);
    free(q);
    MGPU_CHECK(r);
    return MGPU_OK;
}
