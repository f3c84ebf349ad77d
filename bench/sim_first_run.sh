#!/usr/bin/env bash
# sim_first_run.sh - issue 9 part 7: a learner's first run of the sim's
# 8-rank all_reduce sweep (8 B - 256 MiB, dgx-h100), target < 3 s wall on
# 2 cores. Each run is a fresh process; between runs it waits PAUSE seconds
# so the kernel has handed the previous run's freed pages back (on a VM with
# free page reporting the next run then faults cold memory, as a first run
# does; dropping the page cache would not model this and needs root).
# Prints wall, user and system seconds and peak RSS of each run, when its
# first row appeared, the median wall time, the #wrong total and the
# output's "# Check:" line. Then the learner's real first run, lab 2's
# sweep step (`mgpulab run 02-allreduce --step 1`): when its first row
# appeared (issue 33: within 1 s; the rows stream to the log as they
# complete) and when the step ended.
# usage: bench/sim_first_run.sh [path/to/mgpulab] [runs] [pause_s]
#   (give two binaries as "old:new" to compare before and after)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bins=${1:-$here/build/mgpulab}
runs=${2:-5}
pause=${3:-5}
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), pause ${pause} s between runs"
# The floor this machine puts under a first run: what touching fresh memory
# costs here (page zeroing; on a VM that hands freed pages back, the host's
# faults too). An out-of-place 256 MiB all_reduce over 8 ranks has 2 GiB of
# receive buffers; the sim leaves untouched the pages the sampled check
# does not give input to (they would only receive zeros), so a run costs a
# fraction of this: peak RSS says how much was touched.
floor=$(/usr/bin/time -f "%e %S" python3 -c '
import mmap
n = 1 << 30
m = mmap.mmap(-1, n)
if hasattr(m, "madvise"): m.madvise(mmap.MADV_HUGEPAGE)
for i in range(0, n, 4096): m[i] = 1
' 2>&1 | tail -1)
read -r fw fs <<<"$floor"
echo "# fresh memory here: 1 GiB first touched in ${fw} s wall, ${fs} s system (8 x 256 MiB of receive buffers, were they all touched: $(awk -v s="$fs" 'BEGIN {printf "%.1f", 2 * s}') s of CPU)"
# stamp START_NS FILE: copy stdin to stdout; FILE gets the seconds from
# START_NS to the first line that matches ROW (a bench row)
stamp() {
  python3 -c '
import re, sys, time
start, out, row = int(sys.argv[1]), sys.argv[2], re.compile(sys.argv[3])
first = None
for line in sys.stdin:
    if first is None and row.search(line): first = time.time_ns()
    sys.stdout.write(line)
open(out, "w").write("%.2f" % ((first - start) / 1e9) if first else "-")
' "$1" "$2" "$3"
}
IFS=: read -r -a list <<<"$bins"
for bin in "${list[@]}"; do
  walls=()
  echo "# $bin"
  for i in $(seq "$runs"); do
    sleep "$pause"
    out=$(mktemp)
    /usr/bin/time -f "%e %U %S %M" -o "$out.time" "$bin" bench all_reduce --backend sim --machine dgx-h100 \
      -b 8 -e 256M -f 2 | stamp "$(date +%s%N)" "$out.first" '^ +[0-9]+ +[0-9]+ ' >"$out"
    read -r wall user sys rss <"$out.time"
    wrong=$(awk '$1 ~ /^[0-9]+$/ && NF == 13 {w += $9 + $13} END {print w + 0}' "$out")
    echo "run $i: wall ${wall} s  user ${user} s  sys ${sys} s  peak rss $((rss / 1024)) MiB  first row $(cat "$out.first") s  wrong ${wrong}  (load $(cut -d' ' -f1 /proc/loadavg))"
    [ "$i" = 1 ] && { grep '^# Check:' "$out" || echo "# (no '# Check:' line: every element checked)"; }
    walls+=("$wall")
    rm -f "$out" "$out.time" "$out.first"
  done
  printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR] = $1} END {printf "median wall %.2f s over %d runs (target < 3 s)\n", a[int((NR + 1) / 2)], NR}'
  # lab 2's sweep step, as a learner first runs it (a private state dir)
  state=$(mktemp -d)
  for i in $(seq "$runs"); do
    sleep "$pause"
    out=$(mktemp)
    t0=$(date +%s%N)
    XDG_STATE_HOME=$state MGPULAB_LABS=$here/labs MGPULAB_CHECKS=$here/checks LANG=C \
      "$bin" run 02-allreduce --step 1 --backend sim --machine dgx-h100 2>&1 | stamp "$t0" "$out.first" \
      '(bench row 1/|^ +8 B )' >"$out"
    done_s=$(python3 -c "import sys, time; print('%.2f' % ((time.time_ns() - int(sys.argv[1])) / 1e9))" "$t0")
    echo "lab 2 step 1, run $i: first row $(cat "$out.first") s  step ended $done_s s  (load $(cut -d' ' -f1 /proc/loadavg))"
    rm -f "$out" "$out.first"
  done
  rm -rf "$state"
done
