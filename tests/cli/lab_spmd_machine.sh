#!/usr/bin/env bash
# lab_spmd_machine.sh - lab.spmd{machine = PRESET} and lab.topo{machine =}:
# a step's what-if on a sim preset, whatever machine the lab runs on (lab 5's
# 70B on the note's 8 H100s, lab 6's two nodes). The test lab
# (tests/data/labs/machine-cases) runs on single-gpu and asks for 8 ranks on
# dgx-h100: each rank must see 8 simulated H100s, the result must say where
# it ran, the lab's own calls must stay on single-gpu, --ranks (this
# machine's) must not change the what-if's ranks, and an unknown preset is a
# lab error that names the presets.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=$src/tests/data/labs/machine-cases MGPULAB_CHECKS=$src/tests/data/labs/checks
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
states() { python3 -c 'import json,sys; print(" ".join(s["state"] for s in json.load(open(sys.argv[1]))["steps"]))' "$1" 2>/dev/null; }

# the whole lab on single-gpu, then on dgx-h100 (a what-if on the machine the lab already runs on)
for m in single-gpu dgx-h100 pcie-4gpu; do
  "$bin" run 1 --backend sim --machine "$m" --json >"$tmp/$m.json" 2>"$tmp/$m.err"; rc=$?
  st=$(states "$tmp/$m.json")
  [ $rc -eq 0 ] && [ "$st" = "passed passed passed" ] && ok ||
    { bad "the what-if lab on $m: exit $rc, states '$st'"; head -c 4000 "$tmp/$m.json"; tail -20 "$tmp/$m.err"; }
done

# what the learner reads: where the what-if ran, and the unknown preset's error
"$bin" run 1 --backend sim --machine single-gpu >"$tmp/text" 2>&1
grep -q "what-if: dgx-h100, simulated true, 8 GPU(s), what-if true; this machine: single-gpu, 1 GPU(s)" "$tmp/text" && ok ||
  { bad "the what-if's result does not say dgx-h100, 8 GPUs"; cat "$tmp/text"; }
grep -q "^\[result\] spmd scripts/where.lua (what-if on the SIMULATED dgx-h100): every rank finished" "$tmp/text" &&
  grep -q "^\[result\] spmd scripts/where.lua: every rank finished" "$tmp/text" && ok ||
  { bad "mgpulab run does not name the what-if (and only it)"; cat "$tmp/text"; }
grep -q "lab.spmd: opts.machine 'dgx-h999' is not a sim preset; the presets: dgx-h100, .*single-gpu" "$tmp/text" && ok ||
  { bad "the unknown preset's error"; cat "$tmp/text"; }

# --ranks is this machine's: the what-if keeps the call's 8 ranks
"$bin" run 1 --step whatif --backend sim --machine single-gpu --ranks 3 --json >"$tmp/r3.json" 2>"$tmp/r3.err"
[ "$(states "$tmp/r3.json")" = passed ] && ok || { bad "--ranks 3 changed the what-if's ranks"; head -c 4000 "$tmp/r3.json"; }

# --fault is this machine's: a what-if is the preset itself
"$bin" run 1 --step whatif --backend sim --machine single-gpu --fault p2p-disabled --json >"$tmp/f.json" 2>"$tmp/f.err"
[ "$(states "$tmp/f.json")" = passed ] && ok || { bad "--fault broke the what-if"; head -c 4000 "$tmp/f.json"; cat "$tmp/f.err"; }

echo "lab_spmd_machine.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
