#!/usr/bin/env bash
# rt_mpirun.sh - `mgpulab bench all_reduce --launcher mpirun` end to end with
# Debian's Open MPI (openmpi-bin, in scripts/deps): 4 sim ranks over TCP.
set -u
MGPULAB=${1:?usage: rt_mpirun.sh /path/to/mgpulab}
fail() { echo "FAIL: $*"; exit 1; }
command -v mpirun >/dev/null 2>&1 || fail "mpirun is not on PATH: apt-get install openmpi-bin (scripts/deps lists it)"
export MGPU_COORD_HOST=127.0.0.1
out=$(timeout 120 "$MGPULAB" bench all_reduce --launcher mpirun --ranks 4 --backend sim --timeout 30 -b 1K -e 1M -f 4 2>&1)
rc=$?
echo "$out" | tail -n 8
[ $rc = 0 ] || fail "bench through mpirun exited $rc"
rows=$(echo "$out" | grep -Ec "^ +[0-9]+ +[0-9]+ +float +sum")
[ "$rows" = 6 ] || fail "expected 6 result rows (1K..1M, x4), got $rows"
echo "$out" | grep -q "Avg bus bandwidth" || fail "no bench footer"
echo "PASS: bench all_reduce on 4 ranks through mpirun"
