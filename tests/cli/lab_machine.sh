#!/usr/bin/env bash
# lab_machine.sh - measurements belong to the machine they were taken on
# (issue 10, item 4): lab 1 recorded on dgx-h100 must not become lab 2's
# reference on pcie-4gpu (it said "no usable peak of NV18 (GPU0-GPU1,
# recorded in lab 1)" and could never pass); lab 2 falls back to what the
# current machine shows. progress.json keeps one set per machine.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=$src/labs MGPULAB_CHECKS=$src/checks
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
fail=0
bad() { echo "FAIL: $*"; fail=1; }
prog=$XDG_STATE_HOME/mgpulab/progress.json

"$bin" run 1 --step 1 --backend sim --machine dgx-h100 >"$tmp/l1" 2>&1
"$bin" run 1 --step 1 --backend sim --machine dgx-h100 --fault nvlink-down >"$tmp/l1f" 2>&1
python3 - "$prog" <<'PY' || bad "progress.json does not keep lab 1's link per machine"
import json, sys
m = json.load(open(sys.argv[1]))["labs"]["01-topology"]["steps"]["matrix"]["by_machine"]
assert m["sim dgx-h100"]["link"] == "NV18", m
assert "sim dgx-h100 fault nvlink-down" in m, m
PY

"$bin" run 2 --step 3 --backend sim --machine pcie-4gpu >"$tmp/l2" 2>&1
grep -q 'recorded in lab 1' "$tmp/l2" && bad "lab 2 on pcie-4gpu used lab 1's link from dgx-h100"
grep -q 'no usable peak of NV18' "$tmp/l2" && bad "lab 2 on pcie-4gpu wants dgx-h100's NV18 peak"
grep -qE 'GPU0-GPU1 in the topology|PCIe|PIX' "$tmp/l2" || bad "lab 2 on pcie-4gpu did not compare with its own link"
[ $fail -eq 0 ] || { echo "--- lab 2 on pcie-4gpu:"; cat "$tmp/l2"; exit 1; }
echo "ok - measurements are per machine; lab 2 falls back to the current machine's link"
