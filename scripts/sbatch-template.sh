#!/usr/bin/env bash
# sbatch-template.sh - `mgpulab bench all_reduce` on 2 nodes x 8 GPUs under
# Slurm. Submit with `sbatch scripts/sbatch-template.sh`; edit the #SBATCH
# lines for your cluster (partition, account, time). docs/runtime.md
# explains the runtime.
#
# The batch script runs once, on the first node: mgpulab there is the
# coordinator (it never touches a GPU). It starts
#   srun -n 16 --kill-on-bad-exit=1 mgpulab worker
# inside this allocation; each worker reads SLURM_PROCID/SLURM_NTASKS/
# SLURM_LOCALID, uses GPU local_rank % GPUs, and connects back over TCP with a
# per-run token. If one rank dies, the coordinator aborts the others and
# srun's --kill-on-bad-exit takes down the rest of the step.
#
#SBATCH --job-name=mgpulab-bench
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --cpus-per-task=8
#SBATCH --time=00:15:00
#SBATCH --output=mgpulab-bench-%j.out
##SBATCH --partition=gpu
##SBATCH --account=myproject
set -euo pipefail

mgpulab=${MGPULAB:-mgpulab}   # an install path every node can see

# The address the workers reach the coordinator at: this node's address on
# the network the other node can reach. mgpulab's default is this host's
# first non-loopback IPv4 address; set it when that is not the right one.
# export MGPU_COORD_HOST=$(hostname -I | awk '{print $1}')

# Every GPU of a node visible to each of its tasks: the worker picks GPU
# SLURM_LOCALID itself (srun's --gpus-per-task binding would hide the peers
# NVLink needs). Extra srun arguments go in MGPU_LAUNCHER_ARGS.
export MGPU_LAUNCHER_ARGS="--gpus-per-node=8 --cpu-bind=none ${MGPU_LAUNCHER_ARGS:-}"

# NCCL between the nodes; mgpulab keeps NCCL_NVLS_ENABLE=0 on every worker.
# export NCCL_SOCKET_IFNAME=eth0
# export NCCL_IB_HCA=mlx5
# export NCCL_DEBUG=INFO

"$mgpulab" bench all_reduce --launcher srun --ranks "${SLURM_NTASKS:-16}" --timeout 300 -b 8 -e 8G -f 2
