#!/usr/bin/env bash
# whatif_agree.sh - issue 13's agreement check: the one-process what-if
# (`mgpulab whatif`, one representative rank per pipeline stage) against
# the full multi-process phantom run of the same step on the sim
# (examples/spmd/pipeline_phantom.lua: 8 rank processes, comm:split per
# axis, phantom ops and collectives, 1F1B with send/recv). Both step times
# are modelled time, so the ratio holds on a loaded machine; it must be
# within 5 %.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

agree() { # NAME "SPMD ARGS" "WHATIF ARGS"
  local name=$1 sargs=$2 wargs=$3
  # shellcheck disable=SC2086
  "$bin" spmd "$src/examples/spmd/pipeline_phantom.lua" --backend sim --machine dgx-h100 --ranks 8 --timeout 300 \
      -- $sargs >"$tmp/$name.spmd" 2>&1; local rc=$?
  # shellcheck disable=SC2086
  "$bin" whatif --machine dgx-h100 $wargs --json >"$tmp/$name.json" 2>&1; local rc2=$?
  if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && python3 - "$tmp/$name.spmd" "$tmp/$name.json" "$name" <<'PY'
import json, re, sys
rows = [json.loads(m) for m in re.findall(r'^\[rank \d+\] result (\{.*\})$', open(sys.argv[1]).read(), re.M)]
assert len(rows) == 8, f"want 8 rank results, saw {len(rows)}"
measured = max(r["rank_ms"] for r in rows)
predicted = json.load(open(sys.argv[2]))["step_ms"]
ratio = predicted / measured
print(f"# {sys.argv[3]}: phantom run {measured:.3f} ms, what-if {predicted:.3f} ms, ratio {ratio:.4f}")
assert abs(ratio - 1) <= 0.05, f"ratio {ratio:.4f} outside 5 %"
PY
  then ok; else bad "$name (spmd rc=$rc, whatif rc=$rc2)"; tail -20 "$tmp/$name.spmd"; cat "$tmp/$name.json"; fi
}

# DP 2 x TP 2 x PP 2 (8 ranks on one DGX H100), 70B-shaped layers, 4 micro-batches
agree dp2tp2pp2 "dp=2 tp=2 pp=2 m=4 layers=4" "--dp 2 --tp 2 --pp 2 --micro-batches 4 --layers 4"
# TP 4 x PP 2 without DP: shorter sequences, recomputation, 3 micro-batches
agree tp4pp2 "dp=1 tp=4 pp=2 m=3 layers=2 seq=2048 recompute=1" \
      "--dp 1 --tp 4 --pp 2 --micro-batches 3 --layers 2 --seq 2048 --recompute 1"
# DP 8 alone: no pipeline, the gradient all-reduce over all eight
agree dp8 "dp=8 tp=1 pp=1 m=2 layers=1 hidden=4096 ffn=11008 heads=32 kv_heads=32" \
      "--dp 8 --tp 1 --pp 1 --micro-batches 2 --layers 1 --hidden 4096 --ffn 11008 --heads 32 --kv-heads 32"

echo "# whatif_agree: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
