#!/usr/bin/env bash
# verify_machine.sh - a step whose verdict depends on the machine (lab 7's
# crash rank, lab 1's link) passed on one machine and verified on another
# (issue 26): verify says which machine it passed on and how to check it
# there (--machine), in the table and in --json; on the machine it passed
# on, or for a step never passed, nothing more is said. progress.json
# records where a step passed ("passed_on").
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=$src/labs MGPULAB_CHECKS=$src/checks
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
prog=$XDG_STATE_HOME/mgpulab/progress.json
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$bin" run 1 --step 1 --backend sim --machine dgx-h100 --answer link01=NV18 --answer nvdomain=8 --answer peak01=450 \
    >"$tmp/pass" 2>&1
grep -q '^PASS' "$tmp/pass" || { echo "FAIL: lab 1 step 1 did not pass on dgx-h100:"; cat "$tmp/pass"; exit 1; }
jq -e '.labs["01-topology"].steps.matrix.passed_on == "sim dgx-h100"' "$prog" >/dev/null ||
    bad "progress.json does not say where the step passed: $(jq -c '.labs["01-topology"].steps.matrix' "$prog")"

# on another machine the same answers are wrong: say where they were right
"$bin" verify 1 --backend sim --machine pcie-4gpu >"$tmp/v" 2>&1
grep -qE '^01-topology +1 matrix +failed ' "$tmp/v" || bad "verify on pcie-4gpu: $(grep matrix "$tmp/v")"
grep -qE '^ +passed on sim dgx-h100, not on this machine \(sim pcie-4gpu\): its verdict depends on the machine - '`
         `'mgpulab verify 01-topology --backend sim --machine dgx-h100 checks it there$' "$tmp/v" ||
    bad "verify does not say where the step passed: $(cat "$tmp/v")"
[ "$(grep -c 'passed on sim' "$tmp/v")" = 1 ] || bad "the note is given for steps that never passed: $(grep 'passed on' "$tmp/v")"
"$bin" verify 1 --backend sim --machine pcie-4gpu --json >"$tmp/v.json" 2>/dev/null
jq -e '[.steps[] | select(.id == "matrix")][0] | .passed_on == "sim dgx-h100" and .machine == "sim pcie-4gpu"' \
    "$tmp/v.json" >/dev/null || bad "verify --json: $(jq -c '[.steps[] | select(.id == "matrix")][0] | {state, passed_on, machine}' "$tmp/v.json")"
# the pass on dgx-h100 stays where it was recorded
jq -e '.labs["01-topology"].steps.matrix.passed_on == "sim dgx-h100"' "$prog" >/dev/null || bad "a failed verify moved passed_on"

# with a fault the machine is another one too, and the suggestion carries it
"$bin" run 1 --step 1 --backend sim --machine pcie-4gpu --fault no-gdr --answer link01=PIX >"$tmp/f" 2>&1
"$bin" verify 1 --backend sim --machine dgx-h100 >"$tmp/v2" 2>&1
grep -q 'passed on sim dgx-h100' "$tmp/v2" && bad "verify on the machine the step passed on adds a note: $(grep 'passed on' "$tmp/v2")"
[ $fail -eq 0 ] && echo "ok - verify says which machine a step passed on and how to check it there"
exit $fail
