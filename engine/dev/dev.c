/* dev.c - the device API: argument checks that do not depend on the
 * backend, then dispatch through the backend's ops (see backend.h). */
#include "dev/backend.h"
#include "dev/mem/mem_dev.h"
#include "mgpu/nn_ops.h"
#include "mgpu/race.h"
#include "mgpu/topo.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*--- Backends ---------------------------------------------------------*/

static const struct mgpu_dev_ops *find_ops(const char *name)
{
    for (int i = 0; mgpu_dev_backends[i]; i++)
        if (strcmp(mgpu_dev_backends[i]->name, name) == 0) return mgpu_dev_backends[i];
    return NULL;
}

/* The one table of backend-kind names, indexed by mgpu_backend_kind. */
static const char *const kind_names[] = {[MGPU_BACKEND_AUTO] = "auto", [MGPU_BACKEND_CUDA] = "cuda",
                                         [MGPU_BACKEND_SIM] = "sim"};

const char *mgpu_backend_kind_name(mgpu_backend_kind kind)
{
    return (unsigned)kind < sizeof kind_names / sizeof kind_names[0] ? kind_names[kind] : kind_names[0];
}

mgpu_result mgpu_backend_kind_parse(const char *text, mgpu_backend_kind *out)
{
    for (unsigned k = 0; text && k < sizeof kind_names / sizeof kind_names[0]; k++)
        if (strcmp(text, kind_names[k]) == 0) {
            *out = (mgpu_backend_kind)k;
            return MGPU_OK;
        }
    return mgpu_fail(MGPU_ERR_INVALID, "--backend: '%s' is not a backend; use auto, cuda or sim", text ? text : "");
}

static mgpu_result open_with(const struct mgpu_dev_ops *ops, const mgpu_backend_config *cfg,
                             mgpu_backend **out)
{
    mgpu_backend *be = calloc(1, sizeof *be);
    if (!be) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory opening the %s backend", ops->name);
    be->ops = ops;
    mgpu_result r = ops->open(be, cfg);
    if (r == MGPU_OK) r = ops->device_count(be, &be->device_count);
    /* A backend of a real machine (cuda) leaves the topology to discovery,
     * which asks the device API (ordinals checked against device_count,
     * set above): here, so that no backend calls back up into dev.c. */
    if (r == MGPU_OK && !be->topo) r = mgpu_topo_discover(be, "/", &be->topo);
    if (r == MGPU_OK) r = mgpu_mem_state_open(be, cfg->alloc_conf);
    if (r != MGPU_OK) {
        mgpu_mem_state_close(be);
        if (be->impl) ops->close(be);
        if (be->topo) mgpu_topo_free(be->topo);
        free(be);
        return r;
    }
    *out = be;
    return MGPU_OK;
}

mgpu_result mgpu_backend_open(const mgpu_backend_config *cfg, mgpu_backend **out)
{
    static const mgpu_backend_config defaults = {MGPU_BACKEND_AUTO, NULL, NULL};
    if (!cfg) cfg = &defaults;
    if (!out) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_backend_open: no output pointer");
    *out = NULL;

    if (cfg->kind == MGPU_BACKEND_SIM) {
        MGPU_CHECK(open_with(&mgpu_dev_sim_ops, cfg, out));
        snprintf((*out)->reason, sizeof (*out)->reason, "sim backend requested");
        return MGPU_OK;
    }
    const struct mgpu_dev_ops *cuda = find_ops("cuda");
    if (cfg->kind == MGPU_BACKEND_CUDA) {
        if (!cuda)
            return mgpu_fail(MGPU_ERR_UNSUPPORTED,
                             "this mgpulab was built without the cuda backend (nvcc was not found "
                             "at build time); rebuild on a machine with the CUDA toolkit, or use "
                             "--backend sim");
        MGPU_CHECK(open_with(cuda, cfg, out));
        snprintf((*out)->reason, sizeof (*out)->reason, "cuda backend requested");
        return MGPU_OK;
    }
    /* AUTO: a named sim machine or fault means sim; else cuda when it opens
     * with at least one GPU, else sim with the reason. */
    if (cfg->machine || cfg->fault) {
        MGPU_CHECK(open_with(&mgpu_dev_sim_ops, cfg, out));
        snprintf((*out)->reason, sizeof (*out)->reason, "auto: --machine/--fault ask for a simulated machine");
        return MGPU_OK;
    }
    char why[200] = "this build has no cuda backend";
    if (cuda) {
        mgpu_backend *be = NULL;
        if (open_with(cuda, cfg, &be) == MGPU_OK) {
            snprintf(be->reason, sizeof be->reason, "auto: %d GPU(s) found", be->device_count);
            *out = be;
            return MGPU_OK;
        }
        snprintf(why, sizeof why, "%s", mgpu_error_message());
    }
    mgpu_error_clear();
    MGPU_CHECK(open_with(&mgpu_dev_sim_ops, cfg, out));
    /* the banner stays one short line; the driver's story is on demand */
    snprintf((*out)->reason, sizeof (*out)->reason, "auto: no usable GPU");
    snprintf((*out)->reason_detail, sizeof (*out)->reason_detail, "%s", why);
    return MGPU_OK;
}

void mgpu_backend_close(mgpu_backend *be)
{
    if (!be) return;
    mgpu_mem_state_close(be); /* cached segments go back before the backend closes */
    mgpu_race_backend_closed(be);
    be->ops->close(be);
    mgpu_topo_free(be->topo);
    free(be);
}

/*--- Devices ----------------------------------------------------------*/

mgpu_result mgpu_device_count(mgpu_backend *be, int *count)
{
    *count = be->device_count;
    return MGPU_OK;
}

mgpu_result mgpu_device_info_get(mgpu_backend *be, int dev, mgpu_device_info *out)
{
    MGPU_CHECK(mgpu_dev_check_device(be, dev));
    memset(out, 0, sizeof *out);
    out->numa_node = -1;
    MGPU_CHECK(be->ops->device_info(be, dev, out));
    if (!out->host[0] && gethostname(out->host, sizeof out->host - 1) != 0) snprintf(out->host, sizeof out->host, "?");
    return MGPU_OK;
}

mgpu_result mgpu_device_mem_info(mgpu_backend *be, int dev, uint64_t *free_b, uint64_t *total_b)
{
    MGPU_CHECK(mgpu_dev_check_device(be, dev));
    MGPU_CHECK(be->ops->mem_info(be, dev, free_b, total_b));
    return MGPU_OK;
}

mgpu_result mgpu_device_synchronize(mgpu_backend *be, int dev)
{
    MGPU_CHECK(mgpu_dev_check_device(be, dev));
    MGPU_CHECK(be->ops->device_synchronize(be, dev));
    mgpu_race_host_waited_device(be, dev);
    return MGPU_OK;
}

void mgpu_backend_describe(mgpu_backend *be, char *buf, size_t len)
{
    const mgpu_topo *t = mgpu_backend_topo(be);
    if (mgpu_backend_simulated(be)) {
        snprintf(buf, len, "SIMULATED machine %s (%s)", t ? mgpu_topo_machine_name(t) : "?", mgpu_backend_reason(be));
        return;
    }
    int n = 0;
    mgpu_device_count(be, &n);
    mgpu_device_info info;
    if (n > 0 && mgpu_device_info_get(be, 0, &info) == MGPU_OK)
        snprintf(buf, len, "cuda: %d GPU%s (%s)", n, n == 1 ? "" : "s", info.name);
    else
        snprintf(buf, len, "cuda: %d GPUs", n);
}

mgpu_result mgpu_pointer_attributes(mgpu_backend *be, const void *ptr, mgpu_ptr_attr *out)
{
    memset(out, 0, sizeof *out);
    out->kind = MGPU_MEM_UNKNOWN;
    out->device = -1;
    MGPU_CHECK(be->ops->pointer_attributes(be, ptr, out));
    return MGPU_OK;
}

/*--- Streams and events -----------------------------------------------*/

mgpu_result mgpu_stream_create(mgpu_backend *be, int dev, int legacy_default, mgpu_stream **out)
{
    *out = NULL;
    MGPU_CHECK(mgpu_dev_check_device(be, dev));
    mgpu_stream *s = calloc(1, sizeof *s);
    if (!s) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    s->be = be;
    s->device = dev;
    s->legacy_default = legacy_default != 0;
    s->refs = 1;
    static _Atomic uint64_t next_id;
    s->id = ++next_id;
    mgpu_result r = be->ops->stream_create(be, s);
    if (r != MGPU_OK) {
        free(s);
        mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        return r;
    }
    mgpu_race_stream_created(s);
    *out = s;
    return MGPU_OK;
}

void mgpu_stream_retain(mgpu_stream *s) { __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED); }
int mgpu_stream_last_ref(const mgpu_stream *s) { return __atomic_load_n(&s->refs, __ATOMIC_ACQUIRE) == 1; }

void mgpu_stream_destroy(mgpu_stream *s)
{
    if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
    s->be->ops->stream_destroy(s->be, s);
    free(s);
}

int mgpu_stream_device(const mgpu_stream *s) { return s->device; }
mgpu_backend *mgpu_stream_backend(const mgpu_stream *s) { return s->be; }

mgpu_result mgpu_stream_synchronize(mgpu_stream *s)
{
    MGPU_CHECK(s->be->ops->stream_synchronize(s));
    mgpu_race_host_waited_stream(s);
    return MGPU_OK;
}

mgpu_result mgpu_stream_query(mgpu_stream *s, int *done)
{
    MGPU_CHECK(s->be->ops->stream_query(s, done));
    if (*done) mgpu_race_host_waited_stream(s);
    return MGPU_OK;
}

void *mgpu_stream_native(mgpu_stream *s)
{
    return s->be->ops->stream_native ? s->be->ops->stream_native(s) : NULL;
}

mgpu_result mgpu_stream_model_time(mgpu_stream *s, double *ns)
{
    if (!s->be->ops->stream_model_time)
        return mgpu_fail(MGPU_ERR_UNSUPPORTED, "the %s backend has no modelled time", s->be->ops->name);
    MGPU_CHECK(s->be->ops->stream_model_time(s, ns));
    return MGPU_OK;
}

mgpu_result mgpu_stream_model_advance(mgpu_stream *s, double ns)
{
    if (!s->be->ops->stream_model_advance)
        return mgpu_fail(MGPU_ERR_UNSUPPORTED, "the %s backend has no modelled time", s->be->ops->name);
    MGPU_CHECK(s->be->ops->stream_model_advance(s, ns));
    return MGPU_OK;
}

mgpu_result mgpu_stream_model_contend(mgpu_stream *s, double t0, double t1, int ctas, double hbm_gbs)
{
    if (!s->be->ops->stream_model_contend) return MGPU_OK; /* a real GPU shares itself */
    MGPU_CHECK(s->be->ops->stream_model_contend(s, t0, t1, ctas, hbm_gbs));
    return MGPU_OK;
}

mgpu_result mgpu_event_create(mgpu_backend *be, int dev, unsigned flags, mgpu_event **out)
{
    *out = NULL;
    MGPU_CHECK(mgpu_dev_check_device(be, dev));
    if ((flags & MGPU_EVENT_INTERPROCESS) && (flags & MGPU_EVENT_TIMING))
        return mgpu_fail(MGPU_ERR_INVALID,
                         "an interprocess event cannot also record timing (CUDA requires "
                         "cudaEventDisableTiming with cudaEventInterprocess)");
    mgpu_event *e = calloc(1, sizeof *e);
    if (!e) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    e->be = be;
    e->device = dev;
    e->flags = flags;
    mgpu_result r = be->ops->event_create(be, e);
    if (r != MGPU_OK) {
        free(e);
        mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        return r;
    }
    *out = e;
    return MGPU_OK;
}

void mgpu_event_destroy(mgpu_event *e)
{
    if (!e) return;
    mgpu_race_event_destroyed(e);
    e->be->ops->event_destroy(e->be, e);
    free(e);
}

mgpu_result mgpu_event_record(mgpu_event *e, mgpu_stream *s)
{
    if (e->be != s->be) return mgpu_fail(MGPU_ERR_INVALID, "event and stream belong to different backends");
    if (e->device != s->device)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "event of device %d cannot be recorded on a stream of device %d (CUDA "
                         "requires the same device); create the event on device %d",
                         e->device, s->device, s->device);
    MGPU_CHECK(e->be->ops->event_record(e, s));
    e->recorded = 1;
    mgpu_race_event_record(e, s);
    return MGPU_OK;
}

mgpu_result mgpu_stream_wait_event(mgpu_stream *s, mgpu_event *e)
{
    if (e->be != s->be) return mgpu_fail(MGPU_ERR_INVALID, "event and stream belong to different backends");
    MGPU_CHECK(s->be->ops->stream_wait_event(s, e));
    mgpu_race_stream_wait(s, e);
    return MGPU_OK;
}

mgpu_result mgpu_event_synchronize(mgpu_event *e)
{
    MGPU_CHECK(e->be->ops->event_synchronize(e));
    mgpu_race_host_waited_event(e);
    return MGPU_OK;
}

mgpu_result mgpu_event_query(mgpu_event *e, int *done)
{
    MGPU_CHECK(e->be->ops->event_query(e, done));
    if (*done) mgpu_race_host_waited_event(e);
    return MGPU_OK;
}

mgpu_result mgpu_event_elapsed_ms(mgpu_event *start, mgpu_event *end, double *ms)
{
    if (!(start->flags & MGPU_EVENT_TIMING) || !(end->flags & MGPU_EVENT_TIMING))
        return mgpu_fail(MGPU_ERR_INVALID, "elapsed time needs two events created with timing enabled");
    if (!start->recorded || !end->recorded)
        return mgpu_fail(MGPU_ERR_INVALID, "elapsed time needs both events recorded first");
    MGPU_CHECK(start->be->ops->event_elapsed_ms(start, end, ms));
    return MGPU_OK;
}

mgpu_result mgpu_gate_hold(mgpu_stream *s, double timeout_ms, mgpu_gate **out)
{
    *out = NULL;
    if (!(timeout_ms > 0)) return mgpu_fail(MGPU_ERR_INVALID, "a stream gate needs a positive timeout");
    mgpu_gate *g = calloc(1, sizeof *g);
    if (!g) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    g->stream = s;
    mgpu_result r = s->be->ops->gate_hold(s, timeout_ms, g);
    if (r != MGPU_OK) {
        free(g);
        mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        return r;
    }
    *out = g;
    return MGPU_OK;
}

mgpu_result mgpu_gate_open(mgpu_gate *g)
{
    if (!g) return MGPU_OK;
    mgpu_result r = g->stream->be->ops->gate_open(g);
    free(g);
    if (r != MGPU_OK) mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
    return r;
}

/*--- Copies -----------------------------------------------------------*/

const char *mgpu_copy_engine_name(mgpu_copy_engine e) { return e == MGPU_COPY_SM ? "sm" : "ce"; }

static mgpu_result check_range(const mgpu_buffer *b, size_t off, size_t bytes, const char *which)
{
    if (off > b->bytes || bytes > b->bytes - off)
        return mgpu_fail(MGPU_ERR_INVALID, "%s range [%zu, %zu+%zu) lies outside its %zu-byte %s buffer",
                         which, off, off, bytes, b->bytes, mgpu_mem_kind_name(b->kind));
    return MGPU_OK;
}

mgpu_result mgpu_copy(mgpu_stream *s, mgpu_buffer *dst, size_t dst_off, const mgpu_buffer *src,
                      size_t src_off, size_t bytes, mgpu_copy_engine how)
{
    if (!s || !dst || !src) return mgpu_fail(MGPU_ERR_INVALID, "copy: no stream, destination or source buffer");
    if (dst->be != s->be || src->be != s->be)
        return mgpu_fail(MGPU_ERR_INVALID, "copy buffers and stream belong to different backends");
    MGPU_CHECK(check_range(dst, dst_off, bytes, "destination"));
    MGPU_CHECK(check_range(src, src_off, bytes, "source"));
    if (bytes == 0) return MGPU_OK;
    if (src->phantom && !dst->phantom)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "copy from a phantom buffer into a real one: phantom (shape-only) memory has no "
                         "values to copy; make the source real, or the destination phantom too");
    if (how == MGPU_COPY_SM && (dst->kind == MGPU_MEM_PAGEABLE || src->kind == MGPU_MEM_PAGEABLE))
        return mgpu_fail(MGPU_ERR_UNSUPPORTED,
                         "an SM (kernel) copy cannot touch pageable host memory: a GPU can only "
                         "read host memory that is pinned and mapped; use a pinned buffer or a "
                         "copy-engine copy");
    /* Phantom work is ordered like any (the race detector's verdict is the
     * same on every backend) and takes modelled time on the sim (the backend
     * moves no data); a backend without modelled time has nothing to do. */
    mgpu_race_op op;
    mgpu_race_op_begin(&op, s, "copy");
    mgpu_race_read(&op, src, src_off, bytes, MGPU_I32);
    mgpu_race_write(&op, dst, dst_off, bytes, MGPU_I32);
    int skip = (dst->phantom || src->phantom) && !s->be->ops->stream_model_time;
    mgpu_result r = skip ? MGPU_OK : s->be->ops->copy(s, dst, dst_off, src, src_off, bytes, how);
    mgpu_race_op_end(&op);
    MGPU_CHECK(r);
    return MGPU_OK;
}

mgpu_result mgpu_memory_latency(mgpu_stream *s, mgpu_buffer *buf, size_t bytes, uint64_t accesses,
                                double *ns)
{
    if (buf->be != s->be) return mgpu_fail(MGPU_ERR_INVALID, "buffer and stream belong to different backends");
    if (buf->kind == MGPU_MEM_PAGEABLE)
        return mgpu_fail(MGPU_ERR_UNSUPPORTED, "a GPU cannot load from pageable host memory; use a pinned buffer");
    MGPU_CHECK(mgpu_phantom_check_read(buf, "memory latency"));
    if (bytes < 64 || bytes > buf->bytes)
        return mgpu_fail(MGPU_ERR_INVALID, "latency ring of %zu bytes must be at least 64 and fit the %zu-byte buffer",
                         bytes, buf->bytes);
    if (accesses == 0) return mgpu_fail(MGPU_ERR_INVALID, "latency needs at least one access");
    MGPU_CHECK(s->be->ops->memory_latency(s, buf, bytes, accesses, ns));
    return MGPU_OK;
}

/*--- Peer access ------------------------------------------------------*/

static mgpu_result check_pair(const mgpu_backend *be, int dev, int peer)
{
    MGPU_CHECK(mgpu_dev_check_device(be, dev));
    MGPU_CHECK(mgpu_dev_check_device(be, peer));
    if (dev == peer) return mgpu_fail(MGPU_ERR_INVALID, "device %d cannot be its own peer", dev);
    return MGPU_OK;
}

mgpu_result mgpu_peer_can_access(mgpu_backend *be, int dev, int peer, int *can)
{
    MGPU_CHECK(check_pair(be, dev, peer));
    MGPU_CHECK(be->ops->peer_can_access(be, dev, peer, can));
    return MGPU_OK;
}

mgpu_result mgpu_peer_attributes(mgpu_backend *be, int dev, int peer, mgpu_p2p_attr *out)
{
    MGPU_CHECK(check_pair(be, dev, peer));
    memset(out, 0, sizeof *out);
    MGPU_CHECK(be->ops->peer_attributes(be, dev, peer, out));
    return MGPU_OK;
}

mgpu_result mgpu_peer_enable(mgpu_backend *be, int dev, int peer)
{
    MGPU_CHECK(check_pair(be, dev, peer));
    MGPU_CHECK(be->ops->peer_enable(be, dev, peer));
    return MGPU_OK;
}

mgpu_result mgpu_peer_disable(mgpu_backend *be, int dev, int peer)
{
    MGPU_CHECK(check_pair(be, dev, peer));
    MGPU_CHECK(be->ops->peer_disable(be, dev, peer));
    return MGPU_OK;
}

mgpu_result mgpu_peer_access_query(mgpu_backend *be, int dev, int peer, int *can, int *enabled)
{
    MGPU_CHECK(check_pair(be, dev, peer));
    *can = *enabled = 0;
    MGPU_CHECK(be->ops->peer_can_access(be, dev, peer, can));
    MGPU_CHECK(be->ops->peer_enabled(be, dev, peer, enabled));
    return MGPU_OK;
}

/* A switch rather than CUDA's two calls: "already enabled" / "not enabled"
 * are the state asked for, not errors (NCCL may have enabled the pair in
 * this context before us; the backend's enable notes that state). */
mgpu_result mgpu_peer_access_enable(mgpu_backend *be, int dev, int peer, int on)
{
    MGPU_CHECK(check_pair(be, dev, peer));
    on = on != 0;
    int now = 0;
    MGPU_CHECK(be->ops->peer_enabled(be, dev, peer, &now));
    if (now == on) return MGPU_OK;
    mgpu_result r = on ? be->ops->peer_enable(be, dev, peer) : be->ops->peer_disable(be, dev, peer);
    if (r == MGPU_ERR_PEER && be->ops->peer_enabled(be, dev, peer, &now) == MGPU_OK && now == on) {
        mgpu_error_clear();
        return MGPU_OK;
    }
    MGPU_CHECK(r);
    return MGPU_OK;
}

/*--- Fill and checksum ------------------------------------------------*/

static mgpu_result check_elems(const mgpu_buffer *b, size_t off, size_t count, mgpu_dtype t)
{
    if ((unsigned)t >= MGPU_DTYPE_COUNT) return mgpu_fail(MGPU_ERR_INVALID, "unknown dtype %d", (int)t);
    size_t esz = mgpu_dtype_size(t);
    if (off % esz) return mgpu_fail(MGPU_ERR_INVALID, "offset %zu is not aligned to %s elements", off, mgpu_dtype_name(t));
    if (count > SIZE_MAX / esz) return mgpu_fail(MGPU_ERR_INVALID, "element count %zu overflows", count);
    MGPU_CHECK(check_range(b, off, count * esz, "tensor"));
    return MGPU_OK;
}

mgpu_result mgpu_fill(mgpu_stream *s, mgpu_buffer *buf, size_t off, size_t count, mgpu_dtype dtype,
                      const mgpu_fill_spec *spec)
{
    MGPU_CHECK(check_elems(buf, off, count, dtype));
    if (count == 0) return MGPU_OK;
    mgpu_race_op op;
    mgpu_race_op_begin(&op, s, "fill");
    mgpu_race_write(&op, buf, off, count * mgpu_dtype_size(dtype), dtype);
    /* phantom: ordered like any, nothing to do without modelled time */
    int skip = buf->phantom && !s->be->ops->stream_model_time;
    mgpu_result r = skip ? MGPU_OK : s->be->ops->fill(s, buf, off, count, dtype, spec);
    mgpu_race_op_end(&op);
    MGPU_CHECK(r);
    return MGPU_OK;
}

mgpu_result mgpu_checksum(mgpu_stream *s, const mgpu_buffer *buf, size_t off, size_t count,
                          mgpu_dtype dtype, uint64_t *out)
{
    MGPU_CHECK(check_elems(buf, off, count, dtype));
    *out = 0;
    MGPU_CHECK(mgpu_phantom_check_read(buf, "checksum"));
    if (count == 0) return MGPU_OK;
    /* the host reads the data through the stream, after waiting for it */
    mgpu_race_host_read_begin(s->be, "checksum");
    mgpu_race_op op;
    mgpu_race_op_begin(&op, s, "checksum");
    mgpu_race_read(&op, buf, off, count * mgpu_dtype_size(dtype), dtype);
    mgpu_result r = s->be->ops->checksum(s, buf, off, count, dtype, out);
    mgpu_race_op_end(&op);
    mgpu_race_host_read_end(s->be);
    MGPU_CHECK(r);
    mgpu_race_host_waited_stream(s);
    return MGPU_OK;
}
