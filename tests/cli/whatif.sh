#!/usr/bin/env bash
# whatif.sh - `mgpulab whatif`: the note's 8 x 8 x 4 on 256 H100s as a
# table and as JSON (step time, memory, bubble, and per axis collective,
# bytes, link); TP across nodes named InfiniBand; bad values refused with
# the option named (exit 2 for a malformed value, 1 for a layout that
# cannot be simulated); mgpu.whatif in an SPMD script gives the same step.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

"$bin" whatif >"$tmp/t" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "TIMING-ONLY" "$tmp/t" && grep -q "DP 8 x TP 8 x PP 4 = 256 GPUs on 32 x dgx-h100" "$tmp/t" &&
   grep -qE "^  TP +8 +all_reduce +64.0 MiB .* NVLink" "$tmp/t" &&
   grep -qE "^  PP +4 +send/recv +64.0 MiB .* InfiniBand" "$tmp/t" &&
   grep -qE "^  DP +8 +all_reduce .* InfiniBand" "$tmp/t" && grep -q "pipeline bubble" "$tmp/t" &&
   grep -q "memory per GPU" "$tmp/t"; then ok; else bad "the default table (rc=$rc)"; cat "$tmp/t"; fi

"$bin" whatif --json >"$tmp/j" 2>&1; rc=$?
if [ $rc -eq 0 ] && python3 - "$tmp/j" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["timing_only"] and r["world"] == 256 and r["nodes"] == 32 and r["micro_batches"] == 128, r
assert abs(r["bubble_ideal"] - 3 / 131) < 1e-9 and r["bubble"] >= r["bubble_ideal"]
assert r["step_ms"] > r["pipeline_ms"] > 0 and r["memory"]["total"] > 0 and r["memory"]["inflight"] == 4
t = r["traffic"]
assert t["tp"]["collective"] == "all_reduce" and t["tp"]["link"] == "NVLink" and t["tp"]["bytes"] == 2 * 4096 * 8192
assert t["pp"]["collective"] == "send/recv" and t["pp"]["link"] == "InfiniBand" and t["pp"]["nodes"] == 2
assert t["dp"]["link"] == "InfiniBand" and t["dp"]["nodes"] == 8 and t["dp"]["calls"] == 1
PY
then ok; else bad "the JSON (rc=$rc)"; cat "$tmp/j"; fi

# TP across two nodes (a model with 16 KV heads: Llama-2-70B's 8 cap TP at 8,
# checked below): its all-reduces leave the node
"$bin" whatif --dp 8 --tp 16 --pp 2 --kv-heads 16 --json >"$tmp/x" 2>&1; rc=$?
if [ $rc -eq 0 ] && python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["traffic"]["tp"]
assert t["link"] == "InfiniBand" and t["nodes"] == 2 and t["group"] == 16, t' "$tmp/x"; then ok
else bad "TP 16 across nodes (rc=$rc)"; cat "$tmp/x"; fi

# bad values: the option named
check_err() { # WANT_RC PATTERN ARGS...
  local want=$1 pat=$2; shift 2
  "$bin" whatif "$@" >"$tmp/e" 2>&1; local rc=$?
  if [ $rc -eq "$want" ] && grep -q -- "$pat" "$tmp/e"; then ok; else bad "whatif $* (rc=$rc, want $want, '$pat')"; cat "$tmp/e"; fi
}
check_err 2 "--tp: 'x' is not a whole number" --tp x
check_err 2 "--dp: 0 is out of range" --dp 0
check_err 2 "unknown option '--bogus'" --bogus 1
check_err 2 "--pp needs a value" --pp
# a value the model refuses is bad usage too: exit 2, as other commands (issue 31)
check_err 2 "--tp 3 does not divide the 64 attention heads" --tp 3
check_err 2 "--tp 16 does not divide the 8 KV heads" --dp 8 --tp 16 --pp 2
check_err 2 "--pp 3 does not divide the 80 layers" --pp 3
check_err 2 "--nodes 5" --nodes 5
check_err 2 "not a preset" --machine no-such-box
check_err 2 "--zero '2': use 0 or 1" --zero 2
# a repeated option silently took the last value; both batch options were accepted
check_err 2 "--tp given twice" --tp 8 --tp 4
check_err 2 "--micro-batches and --global-batch both given" --global-batch 512 --micro-batches 8
# the footer names the links the table shows (SHM inside a pcie-4gpu node, not NVLink)
"$bin" whatif --machine pcie-4gpu --dp 8 --tp 4 --pp 8 >"$tmp/p4" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -qE "^  TP +4 .* SHM" "$tmp/p4" && grep -q "links: SHM inside a node, InfiniBand across nodes" "$tmp/p4" &&
   ! grep -q "NVLink inside" "$tmp/p4"; then ok; else bad "pcie-4gpu footer (rc=$rc)"; cat "$tmp/p4"; fi
grep -q "links: NVLink inside a node, InfiniBand across nodes" "$tmp/t" && ok || bad "dgx-h100 footer"

# lab 6 step 4's advice (issue 27): the command's default keeps every
# activation, and the note's 8x8x4 does not fit so; --recompute 1 fits
"$bin" whatif >"$tmp/d" 2>&1
"$bin" whatif --recompute 1 >"$tmp/r" 2>&1
if grep -q 'on stage 0: DOES NOT FIT' "$tmp/d" && grep -q 'on stage 0: fits' "$tmp/r"; then ok
else bad "the default (keep activations) should not fit and --recompute 1 should"; cat "$tmp/d" "$tmp/r"; fi

# the Lua binding answers as the command does
cat >"$tmp/w.lua" <<'LUA'
local r = mgpu.whatif{dp = 4, tp = 8, pp = 8, recompute = 1}
mgpu.result{step_ms = r.step_ms, link = r.traffic.dp.link, world = r.world, fits = r.fits}
local ok, err = pcall(mgpu.whatif, {tp = 3})
mgpu.result{bad = tostring(err)}
local ok2, err2 = pcall(mgpu.whatif, {tpp = 3})
mgpu.result{unknown = tostring(err2)}
LUA
"$bin" spmd "$tmp/w.lua" --backend sim --ranks 1 >"$tmp/l" 2>&1; rc=$?
"$bin" whatif --dp 4 --tp 8 --pp 8 --recompute 1 --json >"$tmp/lj" 2>&1
if [ $rc -eq 0 ] && python3 - "$tmp/l" "$tmp/lj" <<'PY'
import json, re, sys
rows = [json.loads(m) for m in re.findall(r'^\[rank 0\] result (\{.*\})$', open(sys.argv[1]).read(), re.M)]
want = json.load(open(sys.argv[2]))
assert abs(rows[0]["step_ms"] - want["step_ms"]) < 1e-6 * want["step_ms"], (rows[0], want["step_ms"])
assert rows[0]["link"] == "InfiniBand" and rows[0]["world"] == 256 and rows[0]["fits"] is True
assert "--tp 3 does not divide" in rows[1]["bad"], rows[1]
assert "unknown option 'tpp'" in rows[2]["unknown"], rows[2]
PY
then ok; else bad "mgpu.whatif (rc=$rc)"; cat "$tmp/l"; fi

echo "# whatif: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
