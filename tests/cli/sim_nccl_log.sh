#!/usr/bin/env bash
# sim_nccl_log.sh - with NCCL_DEBUG=INFO the sim communicator prints NCCL's
# lines for its modelled rings and transports, marked SIMULATED: P2P inside
# a DGX node, NET/IB with GDRDMA between the nodes of 2x-dgx-h100, SHM with
# p2p-disabled and between two ranks on one GPU, no GDRDMA with no-gdr,
# COLLNET with NCCL_COLLNET_ENABLE=1; nothing without NCCL_DEBUG. And the
# crash fault fails the run naming the rank (fail-stop).
set -u
bin=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
bench() { # bench OUT ARGS... (1 MiB all_reduce unless ARGS give -b/-e, one iteration)
  local out=$1; shift
  local sizes=(-b 1M -e 1M) # bench refuses a flag given twice
  [[ " $* " == *" -b "* ]] && sizes=()
  "$bin" bench all_reduce --backend sim "${sizes[@]}" "$@" >"$out" 2>&1; rc=$?
}
has() { grep -qE -- "$2" "$1"; }

NCCL_DEBUG=INFO bench "$tmp/two" --machine 2x-dgx-h100 --ranks 16
[ "$rc" -eq 0 ] && ok || { bad "bench on 2x-dgx-h100: rc=$rc"; tail "$tmp/two"; }
has "$tmp/two" '^SIMULATED-node0:[0-9]+:[0-9]+ \[0\] NCCL INFO NCCL version SIMULATED' && ok || bad "no SIMULATED version line"
has "$tmp/two" 'NCCL INFO comm 0x[0-9a-f]+ rank 15 nRanks 16 nNodes 2 localRanks 8 localRank 7' && ok || bad "no comm line of rank 15"
has "$tmp/two" 'NCCL INFO Channel 00/0 : 0\[0\] -> 1\[1\] via P2P/CUMEM/read' && ok || bad "no P2P edge 0 -> 1"
has "$tmp/two" 'NCCL INFO Channel 00/0 : 7\[7\] -> 8\[0\] \[send\] via NET/IB/7/GDRDMA' && ok || bad "no IB edge 7 -> 8 with GDRDMA"
has "$tmp/two" 'NCCL INFO Using network IB' && ok || bad "no 'Using network IB'"
has "$tmp/two" 'NCCL INFO AllReduce: 1048576 Bytes -> Algo [A-Z_]+ proto [A-Z0-9]+ channel' && ok || bad "no tuner line"
n=$(grep -c 'NCCL INFO AllReduce: 1048576 Bytes' "$tmp/two"); [ "$n" -eq 1 ] && ok || bad "tuner line printed $n times, wanted once"
grep -v '^#' "$tmp/two" | grep 'NCCL INFO' | grep -qv '^SIMULATED-' && bad "an INFO line without the SIMULATED marker" || ok

NCCL_DEBUG=INFO bench "$tmp/nogdr" --machine 2x-dgx-h100 --ranks 16 --fault no-gdr
has "$tmp/nogdr" 'via NET/IB/7$' && ok || bad "no-gdr: no plain NET/IB edge"
has "$tmp/nogdr" 'GDRDMA' && bad "no-gdr: GDRDMA still printed" || ok
NCCL_DEBUG=INFO bench "$tmp/shm" --machine dgx-h100 --ranks 8 --fault p2p-disabled
has "$tmp/shm" '0\[0\] -> 1\[1\] via SHM/direct/direct' && ok || bad "p2p-disabled: no SHM edge"
NCCL_DEBUG=INFO NCCL_P2P_DISABLE=1 bench "$tmp/shm2" --machine dgx-h100 --ranks 8
has "$tmp/shm2" '0\[0\] -> 1\[1\] via SHM/direct/direct' && ok || bad "NCCL_P2P_DISABLE=1: no SHM edge"
# two ranks sharing one GPU (single-gpu, the labs' ranks on one device):
# NCCL refuses a duplicate GPU, the sim lets them meet in device memory
NCCL_DEBUG=INFO bench "$tmp/self" --machine single-gpu --ranks 2
has "$tmp/self" '1\[0\] -> 0\[0\] via SHM/direct/direct' && ok || bad "single-gpu, 2 ranks: no SHM edge between the ranks"
# IB SHARP (a what-if: no preset has SHARP switches): with NVLink SHARP on,
# NCCL runs NVLS with the switches' reduction across nodes; without it CollNet
NCCL_DEBUG=INFO NCCL_COLLNET_ENABLE=1 bench "$tmp/sharp" --machine 2x-dgx-h100 --ranks 16 -b 64M -e 64M
has "$tmp/sharp" 'AllReduce: 67108864 Bytes -> Algo NVLS proto SIMPLE' && ok || bad "NCCL_COLLNET_ENABLE=1: no NVLS + SHARP"
NCCL_DEBUG=INFO NCCL_COLLNET_ENABLE=1 NCCL_NVLS_ENABLE=0 bench "$tmp/sharp0" --machine 2x-dgx-h100 --ranks 16 -b 64M -e 64M
has "$tmp/sharp0" 'Algo COLLNET_DIRECT' && ok || bad "NCCL_COLLNET_ENABLE=1 NCCL_NVLS_ENABLE=0: no COLLNET algorithm"
# NVLink SHARP by default on one DGX: the multicast line, its buffers, the algorithm
NCCL_DEBUG=INFO bench "$tmp/nvls" --machine dgx-h100 --ranks 8 -b 64M -e 64M
has "$tmp/nvls" 'NVLS multicast support is available on dev 0' && ok || bad "dgx-h100: no NVLS multicast line"
has "$tmp/nvls" 'nvlsTotalSize 268435456' && ok || bad "dgx-h100: NVLS buffers not 256 MiB"
has "$tmp/nvls" '16 coll channels, 0 collnet channels, 16 nvls channels' && ok || bad "dgx-h100: not 16 nvls channels"
has "$tmp/nvls" 'AllReduce: 67108864 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}' && ok || bad "dgx-h100 64 MiB: not NVLS"
# the ring NCCL's search builds around a GPU whose NVLinks are down
NCCL_DEBUG=INFO bench "$tmp/down" --machine dgx-h100 --ranks 8 --fault nvlink-down:3
has "$tmp/down" 'Channel 00/02 :   0   1   3   2   4   5   6   7' && ok || { bad "nvlink-down:3: ring not 0 1 3 2 4 5 6 7"; grep "Channel 00/" "$tmp/down"; }
bench "$tmp/quiet" --machine dgx-h100 --ranks 4
has "$tmp/quiet" 'NCCL INFO' && bad "NCCL INFO lines without NCCL_DEBUG" || ok

# the crash fault: fail-stop, the rank named, nothing left behind
bench "$tmp/crash" --machine 2x-dgx-h100 --ranks 4 --fault crash:2
[ "$rc" -ne 0 ] && ok || bad "a run whose rank 2 crashed exited 0"
has "$tmp/crash" 'rank 2 was killed by signal 9' && ok || { bad "the crashed rank is not named"; cat "$tmp/crash"; }

echo "sim_nccl_log.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
