/* comm_registry.c - which communicator backends this build has, as
 * dev/backend_registry.c is for the device backends: one table, the one
 * place that names them. comm.c takes the one that pairs with a
 * communicator's device backend; a group call goes to all of them. A new
 * backend is an ops table (comm_backend.h) and a line here. */
#include "comm/comm_backend.h"
#include <string.h>

const struct mgpu_comm_ops *const mgpu_comm_backends[] = {
    &mgpu_comm_nccl_ops,
    &mgpu_comm_sim_ops,
    NULL,
};

const struct mgpu_comm_ops *mgpu_comm_backend_for(const char *dev_backend)
{
    for (const struct mgpu_comm_ops *const *o = mgpu_comm_backends; *o; o++)
        if (dev_backend && strcmp((*o)->dev_backend, dev_backend) == 0) return *o;
    return NULL;
}
