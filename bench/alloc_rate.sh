#!/usr/bin/env bash
# alloc_rate.sh - the CPU side of issue 11's allocator benchmark: malloc/free
# pairs per second of the caching allocator (and of plain allocations) on
# the sim, where a new segment is a host mapping instead of cudaMalloc: the
# allocator's own cost. Not a timed test: rerun it and read the numbers (a
# loaded machine reads slower). The GPU side, next to torch's allocator:
# tests/gpu/round-mem (scripts/compare-alloc-torch.py).
# usage: bench/alloc_rate.sh [path/to/build] [seconds per case]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/tests/gpu_mem_rate" sim "${2:-0.5}" | grep -v '^{'
