#!/usr/bin/env bash
# spmd.sh - `mgpulab spmd` on the sim backend: the examples give the right
# answers on every rank; errors name the rank, line and traceback; the
# sandbox holds on the ranks; a collective mismatch ends within the timeout
# and names the mismatched rank; bad files and options are refused (exit 2).
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
ex=$src/examples/spmd
sim=(--backend sim --machine dgx-h100)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
run() { # run OUTFILE ARGS... -> sets rc and secs
  local out=$1; shift
  local t0=$(date +%s.%N)
  "$bin" "$@" >"$out" 2>&1; rc=$?
  secs=$(echo "$(date +%s.%N) - $t0" | bc)
}
has() { grep -qE -- "$2" "$1"; }

# allreduce on 4 ranks: exit 0, every rank reports the right sum (1+2+3+4)
run "$tmp/ar" spmd "$ex/allreduce.lua" "${sim[@]}" --ranks 4
[ "$rc" -eq 0 ] && ok || { bad "allreduce.lua on 4 ranks: rc=$rc"; cat "$tmp/ar"; }
for r in 0 1 2 3; do
  if grep -E "^\[rank $r\] result " "$tmp/ar" | grep -q '"expected":10,' &&
     grep -E "^\[rank $r\] result " "$tmp/ar" | grep -q '"mismatches":0,' &&
     grep -E "^\[rank $r\] result " "$tmp/ar" | grep -q '"random_wrong":0,' &&
     grep -E "^\[rank $r\] result " "$tmp/ar" | grep -q '"value":10.0'; then ok
  else bad "rank $r lacks the right all_reduce result"; cat "$tmp/ar"; fi
  has "$tmp/ar" "^\[rank $r\] all_reduce\(sum\) of 1048576 floats: element 0 = 10, expected 10, 0 wrong$" && ok ||
    bad "rank $r log line missing"
done
has "$tmp/ar" "^# SIMULATED machine dgx-h100" && has "$tmp/ar" "^# every rank finished" && ok || bad "banner/footer"

# script arguments and --json
out=$("$bin" spmd "$ex/allreduce.lua" "${sim[@]}" --ranks 3 --json -- 1000 2>&1); rc=$?
if [ $rc -eq 0 ] && python3 - "$out" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
assert d["ok"] is True and d["failed_rank"] is None, d
rows = {r["rank"]: r["row"] for r in d["results"]}
assert sorted(rows) == [0, 1, 2], rows
for r in rows.values():
    assert r["count"] == 1000 and r["expected"] == 6 and r["value"] == 6 and r["mismatches"] == 0, r
assert len([l for l in d["logs"] if "1000 floats" in l["text"]]) == 3, d["logs"]
PY
then ok; else bad "--json / script args (rc=$rc)"; echo "$out" | head -20; fi

# the other examples pass
for f in events split; do
  run "$tmp/$f" spmd "$ex/$f.lua" "${sim[@]}" --ranks 4
  [ "$rc" -eq 0 ] && [ "$(grep -c '^\[rank [0-3]\] result ' "$tmp/$f")" -eq 4 ] && ok || { bad "$f.lua: rc=$rc"; cat "$tmp/$f"; }
done
grep -q '"tp_sum":5' "$tmp/split" && grep -q '"dp_sum":4' "$tmp/split" && ok || bad "split.lua sums"

# a syntax error names a rank and the line
printf 'local x = 1\nlocal y = = 2\n' >"$tmp/syntax.lua"
run "$tmp/syn" spmd "$tmp/syntax.lua" "${sim[@]}" --ranks 2
[ "$rc" -eq 1 ] && has "$tmp/syn" "rank [01] failed: .*syntax\.lua:2: unexpected symbol near '='" && ok ||
  { bad "syntax error: rc=$rc"; cat "$tmp/syn"; }

# a runtime error on one rank: that rank, the message and a traceback with lines
printf 'local function f(t)\n  return t.x\nend\nif mgpu.rank == 1 then f(nil) end\nmgpu.comm():barrier()\n' >"$tmp/rt.lua"
run "$tmp/rt" spmd "$tmp/rt.lua" "${sim[@]}" --ranks 2 --timeout 5
if [ "$rc" -eq 1 ] && has "$tmp/rt" "rank 1 failed: .*rt\.lua:2: attempt to index a nil value \(local 't'\)" &&
   has "$tmp/rt" "stack traceback:" && has "$tmp/rt" "rt\.lua:4: in main chunk"; then ok
else bad "runtime error: rc=$rc"; cat "$tmp/rt"; fi

# the sandbox holds on the ranks
printf 'print("before")\nos.execute("touch %s/escaped")\n' "$tmp" >"$tmp/escape.lua"
run "$tmp/esc" spmd "$tmp/escape.lua" "${sim[@]}" --ranks 2
[ "$rc" -eq 1 ] && has "$tmp/esc" "os\.execute is not available in the mgpulab sandbox" && [ ! -e "$tmp/escaped" ] &&
  has "$tmp/esc" '^\[rank [01]\] before$' && ok || { bad "sandbox on ranks: rc=$rc"; cat "$tmp/esc"; }

# an endless loop is stopped by the time budget (the message is the event;
# how long that took depends on the machine's load, so it is not asserted)
printf 'while true do end\n' >"$tmp/loop.lua"
run "$tmp/loop" spmd "$tmp/loop.lua" "${sim[@]}" --ranks 2 --time-limit 1
if [ "$rc" -eq 1 ] && has "$tmp/loop" "time budget of 1 s"; then ok
else bad "endless loop: rc=$rc after ${secs}s"; cat "$tmp/loop"; fi

# the note's deadlock: ranks 0-2 all_reduce, rank 3 broadcasts; the watchdog
# ends it (it says so: "did not complete within 3 s"; the wall time is not asserted)
run "$tmp/mm" spmd "$ex/mismatch.lua" "${sim[@]}" --ranks 4 --timeout 3
if [ "$rc" -ne 0 ] && has "$tmp/mm" "did not complete within 3 s" && has "$tmp/mm" "rank 3" &&
   has "$tmp/mm" "broadcast" && has "$tmp/mm" "all_reduce"; then ok
else bad "mismatch.lua: rc=$rc after ${secs}s"; cat "$tmp/mm"; fi
grep -q "not reached" "$tmp/mm" && bad "mismatch.lua went past the mismatched collective" || ok
# the analysis names each side's script line (the flight entries keep the call site)
has "$tmp/mm" "^flight recorder: ranks 0-2 entered all_reduce #2 with 1048576 f32 at [^ ]*mismatch.lua:23; rank 3 entered broadcast #2 with 524288 f32 at [^ ]*mismatch.lua:26$" &&
  ok || { bad "mismatch.lua: no flight-recorder analysis naming rank 3"; cat "$tmp/mm"; }

# bad files and options
for args in "spmd $tmp/missing.lua" "spmd $tmp" "spmd" "spmd $ex/allreduce.lua --bogus" \
            "spmd $ex/allreduce.lua --time-limit -1" "spmd $ex/allreduce.lua --mem-limit 1K"; do
  "$bin" $args "${sim[@]}" >"$tmp/o" 2>&1; rc=$?
  [ "$rc" -eq 2 ] && has "$tmp/o" "mgpulab spmd: " && ok || { bad "'$args' -> rc=$rc (want 2)"; cat "$tmp/o"; }
done
head -c 2000000 /dev/zero | tr '\0' ' ' >"$tmp/big.lua"
"$bin" spmd "$tmp/big.lua" "${sim[@]}" >"$tmp/o" 2>&1; rc=$?
[ "$rc" -eq 2 ] && has "$tmp/o" "larger than 1024 KiB" && ok || { bad "too large: rc=$rc"; cat "$tmp/o"; }
"$bin" spmd --help | grep -q "^usage: mgpulab spmd FILE.lua" && ok || bad "--help"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
