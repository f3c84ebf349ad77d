/* coord_setup.h - the coordinator's preparations (coord_setup.c): token,
 * listening socket, default rank count, the sim machine's layout. */
#ifndef MGPU_RT_COORD_SETUP_H
#define MGPU_RT_COORD_SETUP_H
#include "mgpu/rt.h"
#include "rt/protocol.h"

typedef struct rt_listener {
    int fd;
    int tcp, port;
    char dir[128], path[160];  /* Unix: private directory and socket path */
    char address[320];         /* MGPU_COORD: "unix:PATH" or "tcp:HOST:PORT" */
} rt_listener;

mgpu_result rt_make_token(char out[MGPU_PROTO_TOKEN_HEX + 1]);
/* Unix for local launchers, TCP for mpirun/srun (or MGPU_RT_TRANSPORT=tcp). */
mgpu_result rt_listen(mgpu_launcher kind, int backlog, rt_listener *l);
void rt_listener_close(rt_listener *l);

/* When the workers will open a sim machine: its hosts and GPUs (zeros
 * otherwise). Fails when the machine cannot be loaded. */
mgpu_result rt_sim_layout(const mgpu_backend_config *be, int *hosts, int *gpus_per_host, int *total);
/* GPUs the NVIDIA driver lists (/proc/driver/nvidia/gpus), narrowed by
 * CUDA_VISIBLE_DEVICES; no CUDA call. */
int rt_driver_gpu_count(void);
/* ranks when the caller gave 0: SLURM_NTASKS under srun, the sim machine's
 * GPUs, the driver's GPUs, or 1. */
int rt_default_ranks(mgpu_launcher kind, int sim_total);

#endif
