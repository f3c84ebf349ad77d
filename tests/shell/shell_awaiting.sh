#!/bin/bash
# shell_awaiting.sh - a question step run before its questions are answered
# (issue 10 walk): the run keeps its measurement and the verdict says the
# step waits for the learner's answers - state "awaiting", [?] - never FAIL,
# never [!] on the lab, never the values. The same in the shell, headless
# `mgpulab run` (text and JSON) and `verify`. A step with an exercise too
# fails for the exercise alone, and says how many questions still wait.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_real_labs || { echo "ok - # SKIP the repository's labs are not here"; exit 0; }
sim=(--backend sim --machine dgx-h100)

out=$("$BIN" run 1 --step 1 "${sim[@]}" 2>&1)
echo "$out" | grep -q '^AWAITING 3 questions not answered yet: ' || fail "headless run: $(echo "$out" | grep -E '^[A-Z]+ ')"
echo "$out" | grep -q 'press a' && fail "headless run says 'press a' (the shell's key): $(echo "$out" | grep 'press a')"
echo "$out" | grep -q '^  answer: mgpulab run 01-topology --step 1 --answer ID=VALUE' || fail "headless run does not say --answer"
echo "$out" | grep -q '^FAIL' && fail "headless run says FAIL for unanswered questions"
echo "$out" | grep -qE 'wanted: .*(NV18|450)' && fail "headless run shows the value"
echo "$out" | grep -q 'also waits for an answer: GPUs in' || fail "headless run: the other questions are not listed as waiting"
echo "$out" | grep -q 'also failed' && fail "headless run lists unanswered questions as failed"
ok "headless run: AWAITING, the questions listed as waiting, no value"
"$BIN" run 1 --step 1 "${sim[@]}" --json >"$TMPD/run.json" 2>/dev/null
jq -e '.steps[0].state == "awaiting"' "$TMPD/run.json" >/dev/null || fail "run --json state: $(jq -c '.steps[0].state' "$TMPD/run.json")"
jq -e '[.steps[0].checks[] | select(.unanswered == true)] | length == 3' "$TMPD/run.json" >/dev/null ||
    fail "run --json: the checks do not say which questions wait"
jq -e '.labs["01-topology"].steps.matrix.state == "awaiting"' "$XDG_STATE_HOME/mgpulab/progress.json" >/dev/null ||
    fail "progress.json: $(jq -c '.labs["01-topology"].steps.matrix' "$XDG_STATE_HOME/mgpulab/progress.json")"
jq -e '.labs["01-topology"].steps.matrix.measurements.link | type == "string"' \
    "$XDG_STATE_HOME/mgpulab/progress.json" >/dev/null || fail "the run did not record its measurement"
ok "run --json and progress.json: awaiting; the measurement recorded"

# a step with an exercise: the exercise fails, the questions only wait
"$BIN" run 1 --step 2 "${sim[@]}" --json >"$TMPD/run2.json" 2>/dev/null
jq -e '.steps[0].state == "failed"' "$TMPD/run2.json" >/dev/null || fail "step 2 (unsolved exercise) is not failed"
msg=$(jq -r '.steps[0].message' "$TMPD/run2.json")
echo "$msg" | grep -qE '^1 of 1 checks failed \(3 questions wait for your answers\): ' ||
    fail "step 2's message counts the questions as failures: ${msg:0:200}"
ok "an exercise step fails for the exercise; its questions wait"

vout=$("$BIN" verify 1 "${sim[@]}" 2>&1)
echo "$vout" | grep -qE '^01-topology +1 matrix +awaiting +3 questions not answered yet' || fail "verify: $(echo "$vout" | grep matrix)"
echo "$vout" | grep -qE '^01-topology +3 peer +awaiting ' || fail "verify: $(echo "$vout" | grep peer)"
echo "$vout" | grep -qE 'checked steps passed \(2 wait for answers\)' || fail "verify summary: $(echo "$vout" | tail -1)"
ok "verify: awaiting, said apart from failures"
"$BIN" reset 1 >/dev/null 2>&1

start_shell 80 24 "${sim[@]}"
wait_for 'Topology' 20
keys j Enter
wait_for 'Steps: 01-topology' 5
keys r
wait_for 'AWAITING +\(' 60
wait_for '\[\?\] 1 The link' 5
wait_for '3 questions not answered yet' 5
screen | grep -q 'FAIL' && fail "the shell says FAIL"
screen | grep -qE '\[!\] +1 ' && fail "the lab is marked [!]"
# the verdict box (the topology pane below it shows the machine, rightly)
screen | sed -n '/Verdict/,/└/p' | grep -qE 'NV18|450' && fail "the verdict shows a value"
wait_for 'measured; its questions wait for your answers \(press a\)' 5
# the verdict box says the shell's way to answer, never the headless option
screen | sed -n '/Verdict/,/└/p' | grep -q 'press a to answer' || fail "the verdict box does not say 'press a to answer'"
screen | grep -q -- '--answer' && fail "the shell shows the headless --answer option"
ok "shell: AWAITING, [?], no [!], no value"
keys v
wait_for 'Checks: 0 passed; 3 questions wait for your answers' 5
wait_for '\[\?\] +1\. link GPU0-GPU1: not answered yet' 5
keys Escape
wait_gone 'Checks: ' 5
keys a
wait_for 'Question 1/3' 5
keys N V 1 8 Enter
wait_for 'Question 2/3' 5
keys 8 Enter
wait_for 'Question 3/3' 5
keys 4 5 0 Enter
wait_for 'PASS +\(' 30
wait_for '\[x\] 1 The link' 5
ok "answered: PASS"
keys q
wait_exit "$SHELL_PID" 10
