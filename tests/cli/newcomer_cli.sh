#!/usr/bin/env bash
# newcomer_cli.sh - the CLI details a newcomer tripped over (issue 10, item
# 16): bench --predict under the automatic backend; the bench header names
# an active --fault; 2x-dgx-h100's ranks are on simulated hosts, not on this
# machine's name; headless `run 1 --step 1` prints lab 1's whole matrix (it
# stopped after NIC6); `run --help`'s --answer example names a question that
# exists; the SPMD API names a misspelt option key and an undefined name
# given as an option's value (seed = rnk used to mean seed 0).
set -u
bin=$1
src=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d /tmp/mgpu-newcomer.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

# --- bench --predict without --backend: the automatic sim has a model --------
if [ "$(MGPU_BACKEND= "$bin" topo 2>/dev/null | head -1 | grep -c SIMULATED)" -eq 1 ]; then
  "$bin" bench all_reduce --predict -b 1M -e 1M >"$tmp/p" 2>&1; rc=$?
  [ $rc -eq 0 ] && grep -qE "^# Predicted by the model of dgx-h100 for 1048576 bytes" "$tmp/p" && ok ||
    { bad "bench --predict under the automatic backend: rc=$rc"; cat "$tmp/p"; }
fi

# --- the header names the fault; so does the JSON ------------------------------
"$bin" bench all_reduce --backend sim --fault nvlink-down -b 1M -e 1M >"$tmp/f" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^# fault: nvlink-down" "$tmp/f" && ok || { bad "bench header without the fault: rc=$rc"; cat "$tmp/f"; }
"$bin" bench all_reduce --backend sim --fault nvlink-down -b 1M -e 1M --json >"$tmp/fj" 2>&1
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["fault"] == "nvlink-down"' "$tmp/fj" && ok ||
  { bad "bench --json without the fault"; head -c 600 "$tmp/fj"; }
"$bin" bench all_reduce --backend sim -b 1M -e 1M >"$tmp/nf" 2>&1
grep -q "^# fault" "$tmp/nf" && bad "a fault line without --fault" || ok

# --- 2x-dgx-h100: ranks 0-7 on the first simulated host, 8-15 on the second ---
"$bin" bench all_reduce --backend sim --machine 2x-dgx-h100 --ranks 16 -b 1M -e 1M >"$tmp/h" 2>&1; rc=$?
n0=$(grep -cE "^#  Rank +[0-7] .* on SIMULATED-node0 device" "$tmp/h")
n1=$(grep -cE "^#  Rank +(8|9|1[0-5]) .* on SIMULATED-node1 device" "$tmp/h")
[ $rc -eq 0 ] && [ "$n0" -eq 8 ] && [ "$n1" -eq 8 ] && ok || { bad "hosts of 2x-dgx-h100: node0 $n0, node1 $n1 (want 8, 8)"; grep "Rank" "$tmp/h"; }

# --- lab 1 step 1 headless: the whole matrix -----------------------------------
MGPULAB_LABS=$src/labs "$bin" run 1 --step 1 --backend sim --machine dgx-h100 >"$tmp/m" 2>&1
hdr=$(grep -E "^ +GPU0 GPU1 .*NIC0" "$tmp/m" | head -1)
grep -qE "NIC6 +NIC7$" <<<"$hdr" && grep -qE "^  NIC7 +SYS" "$tmp/m" && ok || { bad "lab 1's matrix is cut: '$hdr'"; head -25 "$tmp/m"; }

# --- run --help: every --answer example names an existing question -------------
"$bin" run --help | grep -E "^  mgpulab run .*--answer" >"$tmp/ex"
[ -s "$tmp/ex" ] || bad "run --help has no --answer example"
while read -r _ cmd args; do
  # shellcheck disable=SC2086
  MGPULAB_LABS=$src/labs "$bin" $cmd $args --backend sim --machine dgx-h100 >"$tmp/e" 2>&1; rc=$?
  [ $rc -eq 0 ] && ! grep -q "has no question" "$tmp/e" && ok || { bad "run --help's example '$cmd $args': rc=$rc"; head -5 "$tmp/e"; }
done <"$tmp/ex"

# --- SPMD option tables: a misspelt key, an undefined name as a value ---------
spmd() { "$bin" spmd "$1" --backend sim --ranks 2 >"$tmp/s" 2>&1; }
printf 'local rank = mgpu.rank\nlocal t = mgpu.tensor(16)\nt:fill{kind = "random",\n       seed = rnk}\n' >"$tmp/nil.lua"
spmd "$tmp/nil.lua"; rc=$?
[ $rc -ne 0 ] && grep -q "nil.lua:4: 'rnk' is not defined: \`seed = rnk\` gives seed nil" "$tmp/s" && grep -q "did you mean 'rank'" "$tmp/s" && ok ||
  { bad "seed = rnk: rc=$rc"; head -5 "$tmp/s"; }
printf 'local t = mgpu.tensor(16)\nt:fill{kind = "random", seeed = 3}\n' >"$tmp/key.lua"
spmd "$tmp/key.lua"; rc=$?
[ $rc -ne 0 ] && grep -q "key.lua:2: tensor:fill: unknown option 'seeed' (the options: kind, seed, value, stream)" "$tmp/s" && ok ||
  { bad "seeed = 3: rc=$rc"; head -5 "$tmp/s"; }
for call in 'mgpu.tensor{count = 4, dtyp = "f32"}' 'mgpu.stream{devic = 0}' 'mgpu.event{timming = true}' \
            'mgpu.copy(mgpu.tensor(4), mgpu.tensor(4), {engin = "sm"})' 'mgpu.phantom_tensor{count = 4, dtype = "f32", devce = 0}'; do
  printf '%s\n' "$call" >"$tmp/k.lua"
  spmd "$tmp/k.lua"; rc=$?
  [ $rc -ne 0 ] && grep -q "unknown option '" "$tmp/s" && ok || { bad "'$call' was accepted: rc=$rc"; head -4 "$tmp/s"; }
done
printf 'local t = mgpu.tensor{count = 16, dtype = "f32"}\nt:fill{kind = "random", seed = mgpu.rank}\nif undefined_but_tested == nil then end\n' >"$tmp/good.lua"
spmd "$tmp/good.lua"; rc=$?
# reading an undefined global is an error in the script itself, comparisons included
grep -q "'undefined_but_tested' is not defined" "$tmp/s" && ok || { bad "strict globals missed a comparison"; head -4 "$tmp/s"; }
printf 'local t = mgpu.tensor{count = 16, dtype = "f32"}\nt:fill{kind = "random", seed = mgpu.rank}\nprint(t:checksum())\n' >"$tmp/good.lua"
spmd "$tmp/good.lua"; rc=$?
[ $rc -eq 0 ] && ok || { bad "a correct script failed: rc=$rc"; head -5 "$tmp/s"; }

echo "newcomer_cli.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
