#!/usr/bin/env bash
# validate_faults.sh - sim faults caught by `mgpulab validate` from what it
# measures and discovers, the thing at fault named: a down NVLink (the GPU
# and its links), P2P disabled, a straggler (the rank). Exit status 1 on
# each. validate_machine.sh holds GDR off, a Gen3 x8 XML and --expect.
source "$(dirname "$0")/validate_lib.bash" "$1"

run --machine dgx-h100 --fault nvlink-down:3; rc=$?
check "nvlink-down exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "nvlink-down names GPU3's links" 'anomaly nvml "GPU3 NVLinks" | grep -q "0 of 18 up.*NVLinks 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17 are down"'
check "nvlink-down: the GPU0-GPU3 path is degraded" 'anomaly topology "GPU0-GPU3 path" | grep -q "| NV18 |"'
check "nvlink-down: GPU0-GPU1 is fine" '! anomaly topology "GPU0-GPU1 path" >/dev/null'
check "nvlink-down: peer copies to GPU3 below the model" 'anomaly copy "device_to_device_memcpy_read_ce GPU0->GPU3" >/dev/null'
check "nvlink-down: all_reduce busbw below the model" 'anomaly collective "all_reduce 4 MiB out of place busbw" >/dev/null'
check "nvlink-down: one finding first, explaining all" 'finding "^GPU3.s NVLinks are down: 0 of 18 up"'
check "nvlink-down: the text puts the finding before the table" '"$bin" validate --backend sim --quick --machine dgx-h100 --fault nvlink-down:3 2>/dev/null | python3 -c "
import sys; t = sys.stdin.read()
assert t.index(\"Findings\") < t.index(\"section \") and \"1. GPU3\x27s NVLinks are down: 0 of 18 up;\" in t, t[:800]"'

run --machine pcie-4gpu --fault p2p-disabled; rc=$?
check "p2p-disabled exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "p2p-disabled: peer access anomaly" 'anomaly topology "peer access" | grep -q "disabled on 6 of 6 pairs"'
check "p2p-disabled: one finding, peer access" 'finding "^peer access is disabled on 6 of 6 pairs"'

run --machine pcie-4gpu --fault straggler:1; rc=$?
check "straggler exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "straggler: rank 1 named" 'anomaly ranks "rank 1" | grep -q "rank 1 (host .*, GPU 1) is a straggler"'
check "straggler: no other rank named" '! anomaly ranks "rank 0" >/dev/null && ! anomaly ranks "rank 2" >/dev/null'
check "straggler:1: one finding, the rank" 'finding "^rank 1 is a straggler"'
# a latency within the loose bar but beyond the model's tolerance says why
check "straggler: a slow small all_gather is explained" 'python3 - "$tmp/v.json" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["checks"] if c["check"] == "all_gather 8 KiB out of place latency"][0]
assert c["status"] == "ok" and "above the model" in c.get("note", "") and "slow rank" in c["note"], c
PY'

# on the 8 GPUs of dgx-h100: rank 0 and rank 5; copies (no rank of the run) are not blamed
for r in 0 5; do
  run --machine dgx-h100 --fault straggler:$r; rc=$?
  check "straggler:$r exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
  check "straggler:$r: one finding, rank $r" 'finding "^rank $r is a straggler"'
  check "straggler:$r: no copy blamed" '! anomaly copy "" >/dev/null'
done

echo "validate_faults: $pass passed, $fail failed"
[ $fail -eq 0 ]
