#!/usr/bin/env bash
# sim_sweep.sh - the sim bar of SPEC section 7: an 8-rank all_reduce sweep
# 8 B - 256 MiB on --machine dgx-h100, checked, in < 2 s on 2 cores. Runs it
# a few times and prints wall, user and system seconds of each run (system
# time is mostly the kernel zeroing the 8 x 512 MiB of fresh buffers; on a
# VM that returns freed pages to the host this is much slower the first time
# memory is touched), the busbw at 256 MiB and the #wrong total.
# usage: bench/sim_sweep.sh [path/to/mgpulab] [runs]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/mgpulab}
runs=${2:-3}
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$runs"); do
  out=$(mktemp)
  /usr/bin/time -f "%e %U %S" -o "$out.time" "$bin" bench all_reduce --backend sim --machine dgx-h100 \
    -b 8 -e 256M -f 2 >"$out"
  read -r wall user sys <"$out.time"
  row=$(awk '$1 == 268435456 {print $8, $9+$13}' "$out")
  echo "run $i: wall ${wall} s  user ${user} s  sys ${sys} s  busbw@256MiB ${row% *} GB/s  wrong ${row#* }  (target: wall < 2 s)"
  rm -f "$out" "$out.time"
done
