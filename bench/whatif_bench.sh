#!/usr/bin/env bash
# whatif_bench.sh - the what-if's speed targets (issue 13, lab 6 item 4):
# one step of Llama-2-70B simulated for 256 GPUs (the note's DP 8 x TP 8 x
# PP 4) in under 1 s, and for 4096 GPUs in under 5 s, on this machine
# (2 cores in CI). Wall time of the whole command, best of 3 runs.
#   bench/whatif_bench.sh [MGPULAB]     (default build/mgpulab)
set -u
bin=${1:-build/mgpulab}
fail=0
best() { # ARGS... -> prints the best wall seconds of 3 runs
  local b=999 t0 t1 s
  for _ in 1 2 3; do
    t0=$(date +%s.%N)
    "$bin" whatif "$@" --json >/dev/null || { echo "whatif $* failed" >&2; echo 999; return; }
    t1=$(date +%s.%N)
    s=$(echo "$t1 - $t0" | bc)
    if (( $(echo "$s < $b" | bc) )); then b=$s; fi
  done
  echo "$b"
}
check() { # LABEL LIMIT ARGS...
  local label=$1 limit=$2; shift 2
  local s; s=$(best "$@")
  local verdict=ok
  (( $(echo "$s < $limit" | bc) )) || { verdict=SLOW; fail=1; }
  printf '%-44s %8.3f s  (target < %s s)  %s\n' "$label" "$s" "$limit" "$verdict"
}
check "256 GPUs: DP 8 x TP 8 x PP 4" 1 --dp 8 --tp 8 --pp 4
check "4096 GPUs: DP 128 x TP 8 x PP 4" 5 --dp 128 --tp 8 --pp 4 --global-batch 4096
check "4096 GPUs: DP 16 x TP 8 x PP 32, 8192 mb" 5 --dp 16 --tp 8 --pp 32 --global-batch 8192 --layers 96
check "4096 GPUs: DP 512 x TP 8 x PP 1" 5 --dp 512 --tp 8 --pp 1 --global-batch 4096
exit $fail
