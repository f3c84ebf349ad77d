#!/usr/bin/env bash
# lab_solution.sh - the reference solution is shown only when asked for, and
# the asking is recorded (issue 26): `mgpulab hint LAB --step N --solution`
# prints a line that says what it shows and that progress keeps it, then the
# step's solution file; progress.json gets "solution_shown": true on that
# step (and on no other), `report` shows it, plain `hint` never does it; a
# step without an exercise has no solution to show; the docs say so.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=$src/tests/shell/labs MGPULAB_CHECKS=$src/checks
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
prog=$XDG_STATE_HOME/mgpulab/progress.json
fail=0
bad() { echo "FAIL: $*"; fail=1; }
shown() { jq -r --arg s "$1" '.labs["00-shelltest"].steps[$s].solution_shown // false' "$prog" 2>/dev/null; }

"$bin" hint shelltest --step exercise >"$tmp/h" 2>&1 || bad "hint exits $?"
[ -f "$prog" ] && [ "$(shown exercise)" = true ] && bad "a plain hint recorded the solution as shown"
grep -q 'return 42' "$tmp/h" && bad "a plain hint shows the solution"

"$bin" hint shelltest --step exercise --solution >"$tmp/s" 2>&1; rc=$?
[ $rc -eq 0 ] || bad "hint --solution exits $rc: $(cat "$tmp/s")"
head -1 "$tmp/s" | grep -qE '^The reference solution of step 4 \(exercise\), answer\.lua - recorded in your progress as shown:$' ||
    bad "no confirmation line first: $(head -1 "$tmp/s")"
diff <(tail -n +2 "$tmp/s") "$src/tests/shell/labs/00-shelltest/solutions/answer.lua" >/dev/null ||
    bad "the solution file is not what follows: $(cat "$tmp/s")"
[ "$(shown exercise)" = true ] || bad "progress.json does not record solution_shown: $(jq -c '.labs["00-shelltest"].steps.exercise' "$prog")"
[ "$(shown bench)" = true ] && bad "another step is recorded as shown"

"$bin" hint shelltest --step read --solution >"$tmp/n" 2>&1; rc=$?
[ $rc -eq 0 ] || bad "a step without an exercise: exit $rc"
grep -q 'has no exercise, so no solution to show' "$tmp/n" || bad "a step without an exercise: $(cat "$tmp/n")"
[ "$(shown read)" = true ] && bad "a step without an exercise is recorded as shown"
"$bin" hint shelltest --solution=yes >"$tmp/u" 2>&1; [ $? -eq 2 ] || bad "--solution=yes is not a usage error"

"$bin" report >"$tmp/r" 2>&1
grep -qE '^\| 4 Edit the exercise \| new \| 0 \| 0 \| yes \|' "$tmp/r" || bad "report does not show the solution as shown: $(grep -E '^\| (step|4) ' "$tmp/r")"
"$bin" report --format json >"$tmp/r.json"
jq -e '[.labs[0].steps[] | select(.solution_shown == true) | .id] == ["exercise"]' "$tmp/r.json" >/dev/null ||
    bad "report --format json: $(jq -c '[.labs[0].steps[] | {id, solution_shown}]' "$tmp/r.json")"

for doc in docs/lab-authoring.md docs/labs.md; do
    grep -q -- '--solution' "$src/$doc" && grep -q 'solution_shown' "$src/$doc" || bad "$doc does not describe --solution and solution_shown"
done
[ $fail -eq 0 ] && echo "ok - the solution is shown only when asked for, after a confirmation line, and recorded"
exit $fail
