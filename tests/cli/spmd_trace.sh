#!/usr/bin/env bash
# spmd_trace.sh - `mgpulab spmd --trace FILE` on the sim backend: the file is
# Chrome trace JSON with X events (pid = rank, tid = stream) for every rank,
# collectives, fills, waits and copies placed in stream order (the consumer's
# all_reduce starts after the producer's fill ended), stream and rank names;
# mgpu.span and group calls appear; a failed run still writes its trace;
# an unwritable trace file fails the command.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
ex=$src/examples/spmd
sim=(--backend sim --machine dgx-h100)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

# events.lua on 2 ranks
"$bin" spmd "$ex/events.lua" "${sim[@]}" --ranks 2 --trace "$tmp/t.json" >"$tmp/out" 2>&1; rc=$?
[ "$rc" -eq 0 ] && grep -q "^# trace: $tmp/t.json ([0-9]* spans" "$tmp/out" && ok ||
  { bad "events.lua --trace: rc=$rc"; cat "$tmp/out"; }
if python3 - "$tmp/t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
xs = [e for e in ev if e["ph"] == "X"]
assert {e["pid"] for e in xs} == {0, 1}, "X events for both ranks"
for e in xs:
    assert e["dur"] >= 0 and e["ts"] >= 0 and e["cat"] in ("kernel", "copy", "collective", "wait"), e
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert procs == {0: "rank 0", 1: "rank 1"}, procs
for r in (0, 1):
    mine = [e for e in xs if e["pid"] == r]
    coll = [e for e in mine if e["cat"] == "collective"]
    assert coll and coll[0]["name"] == "all_reduce 16 KiB", coll
    assert names[(r, coll[0]["tid"])] == "comm" and names[(r, 0)] == "default", names
    fill = [e for e in mine if e["name"].startswith("fill") and e["tid"] != coll[0]["tid"]][0]
    # the consumer waited for the producer's event: its all_reduce starts after the fill ended
    assert coll[0]["ts"] >= fill["ts"] + fill["dur"] - 1e-6, (fill, coll[0])
    wait = [e for e in mine if e["cat"] == "wait" and e["tid"] == coll[0]["tid"]]
    assert wait and wait[0]["ts"] + wait[0]["dur"] <= coll[0]["ts"] + 1e-6, wait
    copies = [e for e in mine if e["cat"] == "copy"]
    assert copies and copies[0]["name"].startswith("copy ce P2P") and "@gpu" in names[(r, copies[0]["tid"])], copies
PY
then ok; else bad "trace content"; head -c 2000 "$tmp/t.json"; echo; fi

# mgpu.span and a group (send/recv) on 2 ranks; --json reports the trace
cat >"$tmp/ring.lua" <<'LUA'
local comm, n = mgpu.comm(), 1024
local a, b = mgpu.tensor(n):fill(mgpu.rank), mgpu.tensor(n)
local peer = 1 - mgpu.rank
mgpu.span("exchange", function()
  mgpu.group(function() comm:send(a, peer); comm:recv(b, peer) end)
end)
mgpu.synchronize()
assert(b:get(0) == peer)
LUA
out=$("$bin" spmd "$tmp/ring.lua" "${sim[@]}" --ranks 2 --json --trace "$tmp/r.json" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && python3 - "$out" "$tmp/r.json" <<'PY'
import json, sys
doc = json.loads(sys.argv[1])
assert doc["ok"] and doc["trace"]["written"] and doc["trace"]["spans"] >= 6, doc.get("trace")
xs = [e for e in json.load(open(sys.argv[2]))["traceEvents"] if e["ph"] == "X"]
for r in (0, 1):
    n = {e["name"]: e for e in xs if e["pid"] == r}
    assert n["exchange"]["cat"] == "kernel", n
    assert n["group send+recv"]["cat"] == "collective", n
    g, s = n["group send+recv"], n["exchange"]
    assert s["ts"] <= g["ts"] and g["ts"] + g["dur"] <= s["ts"] + s["dur"] + 1e-6, (s, g)
PY
then ok; else bad "mgpu.span / group trace: rc=$rc"; echo "$out" | head -30; fi

# a failing run still writes the trace (the all_reduce before the error)
printf 'local x = mgpu.tensor(256):fill(1)\nmgpu.comm():all_reduce(x)\nerror("stop here")\n' >"$tmp/fail.lua"
"$bin" spmd "$tmp/fail.lua" "${sim[@]}" --ranks 2 --trace "$tmp/f.json" >"$tmp/fout" 2>&1; rc=$?
if [ "$rc" -eq 1 ] && grep -q "trace of the failed run written to $tmp/f.json" "$tmp/fout" &&
   python3 -c 'import json,sys; xs=[e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"]=="X"]; assert any(e["cat"]=="collective" for e in xs), xs' "$tmp/f.json"
then ok; else bad "failed run trace: rc=$rc"; cat "$tmp/fout"; fi

# an unwritable trace file fails the command, naming the file
"$bin" spmd "$ex/events.lua" "${sim[@]}" --ranks 2 --trace "$tmp/no/such/dir/t.json" >"$tmp/wout" 2>&1; rc=$?
[ "$rc" -eq 1 ] && grep -q "cannot write the trace to $tmp/no/such/dir/t.json" "$tmp/wout" && ok ||
  { bad "unwritable trace: rc=$rc"; cat "$tmp/wout"; }

# without --trace no spans are recorded and no file appears
"$bin" spmd "$ex/events.lua" "${sim[@]}" --ranks 2 --json >"$tmp/nj" 2>&1; rc=$?
[ "$rc" -eq 0 ] && ! grep -q '"trace"' "$tmp/nj" && ok || { bad "no --trace: rc=$rc"; head -20 "$tmp/nj"; }

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
