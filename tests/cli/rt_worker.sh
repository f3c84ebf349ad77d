#!/usr/bin/env bash
# rt_worker.sh - `mgpulab worker` started by hand: clear errors, exit 2, no
# hang; --help describes it. The timeouts only cut a hang: generous, as a
# busy machine (ASan, load 25 on 2 cores) slows even a quick exit.
set -u
MGPULAB=${1:?usage: rt_worker.sh /path/to/mgpulab}
fail() { echo "FAIL: $*"; exit 1; }
clean=(env -u MGPU_RANK -u MGPU_SIZE -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u SLURM_PROCID -u RANK
       -u WORLD_SIZE -u MGPU_COORD -u MGPU_TOKEN)

out=$("${clean[@]}" timeout 120 "$MGPULAB" worker 2>&1); rc=$?
[ $rc = 2 ] || fail "worker without environment exited $rc: $out"
echo "$out" | grep -q "no rank in the environment" || fail "unclear message: $out"

out=$("${clean[@]}" MGPU_RANK=0 MGPU_SIZE=1 timeout 120 "$MGPULAB" worker 2>&1); rc=$?
[ $rc = 2 ] || fail "worker without MGPU_COORD exited $rc: $out"
echo "$out" | grep -q "MGPU_COORD and MGPU_TOKEN are not set" || fail "unclear message: $out"

out=$("${clean[@]}" OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=2 timeout 120 "$MGPULAB" worker 2>&1); rc=$?
[ $rc = 2 ] || fail "inconsistent Open MPI environment exited $rc: $out"
echo "$out" | grep -q "is not below OMPI_COMM_WORLD_SIZE" || fail "unclear message: $out"

# A coordinator that is not there: a clear error after a few retries, exit 1.
out=$("${clean[@]}" MGPU_RANK=0 MGPU_SIZE=1 MGPU_COORD=unix:/nonexistent/coord.sock MGPU_TOKEN=x \
      timeout 120 "$MGPULAB" worker 2>&1); rc=$?
[ $rc = 1 ] || fail "unreachable coordinator exited $rc: $out"
echo "$out" | grep -q "cannot reach the coordinator" || fail "unclear message: $out"

out=$("${clean[@]}" MGPU_RANK=0 MGPU_SIZE=1 MGPU_COORD=carrier:pigeon MGPU_TOKEN=x timeout 120 "$MGPULAB" worker 2>&1)
echo "$out" | grep -q "neither unix:PATH nor tcp:HOST:PORT" || fail "bad MGPU_COORD not explained: $out"

"$MGPULAB" worker --help | grep -q "MGPU_COORD" || fail "worker --help does not describe it"
"$MGPULAB" worker extra 2>/dev/null; [ $? = 2 ] || fail "worker with an argument did not exit 2"
echo "PASS: mgpulab worker by hand"
