/* comm_args.h - argument checks for collectives and small op predicates
 * (private to engine/comm). */
#ifndef MGPU_COMM_ARGS_H
#define MGPU_COMM_ARGS_H
#include "comm/comm_backend.h"

int mgpu_coll_is_p2p(mgpu_coll op);
int mgpu_coll_has_redop(mgpu_coll op);
int mgpu_coll_has_root(mgpu_coll op);
/* Everything a backend may assume: op, dtype, redop, root/peer in range,
 * buffers on the comm's device, large enough for this op. */
mgpu_result mgpu_coll_args_check(const mgpu_comm *c, const mgpu_coll_args *a);
/* Elements of the send and receive buffers this rank's call reads and
 * writes, as NCCL defines them per op (0: that side is not touched). For
 * checked arguments (no overflow). */
void mgpu_coll_extent(const mgpu_comm *c, const mgpu_coll_args *a, size_t *send_el, size_t *recv_el);
/* 1 when the call touches phantom (shape-only) memory: it takes modelled
 * time and moves no data (mgpu/mem.h). */
int mgpu_coll_phantom(const mgpu_coll_args *a);

/* The per-collective timeout a comm uses, the same for every backend:
 * cfg->timeout_s, else MGPU_COMM_TIMEOUT, else 60 s. */
double mgpu_comm_resolve_timeout(const mgpu_comm_config *cfg);
/* MGPU_OK, or why MGPU_COMM_TIMEOUT is not a positive number of seconds
 * (checked when a comm is created, so a typo is not silently 60 s). */
mgpu_result mgpu_comm_timeout_env_check(void);

#endif
