#!/usr/bin/env bash
# mpirun-example.sh - run `mgpulab bench all_reduce` across two hosts with
# Open MPI. Run it on the first host; mgpulab must be at the same path on
# both (a shared file system, or the same install). docs/runtime.md explains
# each variable.
#
#   scripts/mpirun-example.sh host-a host-b [GPUS_PER_HOST] [extra bench flags]
#
# What happens: this shell becomes the coordinator (it never touches a GPU).
# mgpulab starts `mpirun -np N --host host-a:G,host-b:G ... mgpulab worker`;
# each worker reads OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK, picks GPU
# local_rank % GPUs, and connects back over TCP with a per-run token.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 HOST_A HOST_B [GPUS_PER_HOST] [bench flags...]" >&2
  exit 2
fi
host_a=$1 host_b=$2
gpus=${3:-8}
shift $(( $# >= 3 ? 3 : 2 ))
mgpulab=${MGPULAB:-$(command -v mgpulab || echo "$(dirname "$0")/../build/mgpulab")}

# The address the workers on host_b use to reach this coordinator. By default
# mgpulab advertises this host's first non-loopback IPv4 address; name the
# interface that host_b can reach (the management network, not InfiniBand)
# when that guess is wrong.
export MGPU_COORD_HOST=${MGPU_COORD_HOST:-$(hostname -I | awk '{print $1}')}
# A fixed port helps through a firewall; 0 (the default) picks a free one.
export MGPU_COORD_PORT=${MGPU_COORD_PORT:-0}
# Extra mpirun arguments: where the ranks go. Open MPI starts its daemons
# over ssh, so passwordless ssh from this host to host_b is needed.
export MGPU_LAUNCHER_ARGS="--host ${host_a}:${gpus},${host_b}:${gpus} ${MGPU_LAUNCHER_ARGS:-}"
# NCCL over the network between the hosts: name the interfaces if NCCL's
# choice is wrong (NCCL_SOCKET_IFNAME for bootstrap, NCCL_IB_HCA for IB).
# mgpulab passes every variable below to the workers with mpirun's -x.
#   export NCCL_SOCKET_IFNAME=eth0
#   export NCCL_IB_HCA=mlx5

exec "$mgpulab" bench all_reduce --launcher mpirun --ranks $((2 * gpus)) -b 8 -e 1G -f 2 "$@"
