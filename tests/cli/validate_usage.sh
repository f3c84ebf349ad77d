#!/usr/bin/env bash
# validate_usage.sh - exit codes an engineer can gate a cluster on (issue 31):
# 0 healthy, 1 anomaly, 2 bad usage (said once), 3 could not measure. A
# fault that names a rank or GPU the run lacks, or NVLinks a machine does not
# have, is bad usage - for validate, bench and spmd alike (issue 34): it
# would change nothing while the numbers claim to be the faulty machine's.
# Under backend auto with no usable GPU, validate refuses the sim.
set -u
bin=$1
tmp=$(mktemp -d /tmp/mgpu-validate-usage.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
# usage CMD... : exit 2, the message on stderr once, nothing launched
usage() {
  local pat=$1; shift
  "$bin" "$@" >"$tmp/o" 2>"$tmp/e"; local rc=$?
  local n; n=$(grep -c -- "$pat" "$tmp/e")
  if [ $rc -eq 2 ] && [ "$n" -eq 1 ] && ! grep -q -- "$pat" "$tmp/o"; then ok
  else bad "$* -> rc=$rc (want 2), '$pat' $n time(s) on stderr"; head -c 600 "$tmp/e" "$tmp/o"; fi
}
usage "'bogus' is not a fault" validate --backend sim --quick --fault bogus
usage "nosuch" validate --backend sim --quick --machine nosuch
usage "names GPU 42" validate --backend sim --quick --fault nvlink-down:42
usage "names rank 99, but the run has 8 ranks" validate --backend sim --quick --fault straggler:99
usage "names rank 16, but the run has 16 ranks" validate --backend sim --quick --machine 2x-dgx-h100 --fault straggler:16
usage "has no NVLink to take down" validate --backend sim --quick --machine pcie-4gpu --fault nvlink-down
usage "names rank 4, but the run has 4 ranks" validate --backend sim --quick --machine pcie-4gpu --ranks 4 --fault crash:4
usage "--sustained '0s'" validate --backend sim --sustained 0s
usage "--sustained 'soon'" validate --backend sim --sustained soon
usage "--quick given twice" validate --backend sim --quick --quick

# bench and spmd refuse the same faults (exit 1 as their other launch errors),
# before any rank starts
printf 'mgpu.result{ok = 1}\n' >"$tmp/s.lua"
"$bin" bench all_reduce --backend sim --ranks 4 --fault crash:9 -b 1M -e 1M >"$tmp/o" 2>&1; rc=$?
if [ $rc -ne 0 ] && grep -q "crash:9 names rank 9, but the run has 4 ranks" "$tmp/o" && ! grep -q "Avg bus bandwidth" "$tmp/o"; then ok
else bad "bench crash:9 on 4 ranks rc=$rc"; head -5 "$tmp/o"; fi
"$bin" bench all_reduce --backend sim --ranks 8 --fault straggler:8 -b 1M -e 1M >"$tmp/o" 2>&1; rc=$?
if [ $rc -ne 0 ] && grep -q "straggler:8 names rank 8" "$tmp/o"; then ok; else bad "bench straggler:8 on 8 ranks rc=$rc"; head -5 "$tmp/o"; fi
"$bin" spmd "$tmp/s.lua" --backend sim --ranks 4 --fault straggler:4 >"$tmp/o" 2>&1; rc=$?
if [ $rc -ne 0 ] && grep -q "straggler:4 names rank 4" "$tmp/o"; then ok; else bad "spmd straggler:4 on 4 ranks rc=$rc"; head -5 "$tmp/o"; fi
"$bin" bench all_reduce --backend sim --machine pcie-4gpu --fault nvlink-down:1 -b 1M -e 1M >"$tmp/o" 2>&1; rc=$?
if [ $rc -ne 0 ] && grep -q "no NVLink to take down" "$tmp/o"; then ok; else bad "bench nvlink-down on pcie-4gpu rc=$rc"; head -5 "$tmp/o"; fi
# a fault on a rank the run has still works
"$bin" bench all_reduce --backend sim --ranks 4 --fault straggler:3 -b 1M -e 1M >"$tmp/o" 2>&1; rc=$?
if [ $rc -eq 0 ]; then ok; else bad "bench straggler:3 on 4 ranks rc=$rc"; head -5 "$tmp/o"; fi

# No silent simulation: backend auto measures the real machine or refuses
# (exit 3), saying why; where a driver is present, hide the GPUs.
CUDA_VISIBLE_DEVICES="" "$bin" validate --quick --junit "$tmp/refused.xml" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ $rc -eq 3 ] && grep -q "no usable GPU" "$tmp/e" &&
   grep -qE "no NVIDIA driver|no GPU visible|driver supports CUDA|built without the cuda backend" "$tmp/e" &&
   grep -q -- "--backend sim" "$tmp/e" && ! grep -q "SIMULATED" "$tmp/o"; then ok
else bad "validate under auto without a GPU: rc=$rc (want 3)"; head -c 800 "$tmp/e" "$tmp/o"; fi
if python3 - "$tmp/refused.xml" <<'PY'
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.get("errors") == "1", r.attrib
props = {p.get("name"): p.get("value") for p in r.iter("property")}
assert props.get("backend") == "cuda" and "no usable GPU" in props.get("backend_line", ""), props
PY
then ok; else bad "the refusal's JUnit names the backend and the error"; fi

echo "validate_usage: $pass passed, $fail failed"
[ $fail -eq 0 ]
