/* backend_query.c - what an open backend is, asked of the struct alone:
 * its name, whether it is the sim, its nn ops, reasons and topology, a
 * device ordinal checked, a buffer's host view. dev.c, the allocator
 * (dev_mem.c, mem/) and the race detector all ask these; a file of its own
 * below them, so that asking does not call into dev.c's dispatch. */
#include "dev/backend.h"

const char *mgpu_backend_name(const mgpu_backend *be) { return be->ops->name; }
int mgpu_backend_simulated(const mgpu_backend *be) { return be->ops == &mgpu_dev_sim_ops; }
const struct mgpu_nn_ops *mgpu_backend_nn_ops(const mgpu_backend *be) { return be->ops->nn; }
int mgpu_backend_models_time(const mgpu_backend *be) { return be->ops->stream_model_time != NULL; }
const char *mgpu_backend_reason(const mgpu_backend *be) { return be->reason; }
const char *mgpu_backend_reason_detail(const mgpu_backend *be) { return be->reason_detail; }
const mgpu_topo *mgpu_backend_topo(const mgpu_backend *be) { return be->topo; }

mgpu_result mgpu_dev_check_device(const mgpu_backend *be, int dev)
{
    if (dev < 0 || dev >= be->device_count)
        return mgpu_fail(MGPU_ERR_INVALID, "device %d does not exist: the %s backend has %d device%s (0..%d)",
                         dev, be->ops->name, be->device_count, be->device_count == 1 ? "" : "s",
                         be->device_count - 1);
    return MGPU_OK;
}

void *mgpu_buffer_host_view(mgpu_buffer *buf)
{
    if (!buf || buf->phantom) return NULL;
    if (buf->kind != MGPU_MEM_DEVICE) return buf->ptr;
    return buf->be->ops->host_view ? buf->be->ops->host_view(buf) : NULL;
}
