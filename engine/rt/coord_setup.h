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
    int cleanup_dir, cleanup_path; /* mgpu_cleanup slots: removed if a signal kills us */
} rt_listener;

mgpu_result rt_make_token(char out[MGPU_PROTO_TOKEN_HEX + 1]);
/* Unix for local launchers, TCP for mpirun/srun (or MGPU_RT_TRANSPORT=tcp). */
mgpu_result rt_listen(mgpu_launcher kind, int backlog, rt_listener *l);
void rt_listener_close(rt_listener *l);

/* mgpu_rt_sim_layout and mgpu_rt_default_ranks are in mgpu/rt.h. */

#endif
