#!/bin/bash
# shell_exercise.sh - e opens the exercise in $EDITOR; the saved change
# re-runs the check by itself (watch mode) and it passes; an answer typed
# at the prompt is saved; x resets the lab after y (n keeps it), the
# exercise is the original again and the old copy is kept as .bak.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs
WORK="$XDG_STATE_HOME/mgpulab/work/00-shelltest"
# an "editor" that solves the exercise the way a learner would: edit, save
cat >"$TMPD/editor.sh" <<'ED'
#!/bin/sh
sed -i 's/return 0/return 42/' "$1"
ED
chmod +x "$TMPD/editor.sh"
export EDITOR="$TMPD/editor.sh"

start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
keys j j j
wait_for 'answer.lua' 5
keys r
wait_for 'FAIL +\(' 20
wait_for 'saw: +0' 5
ok "the unsolved exercise fails, with what it saw"
keys e
wait_for 'PASS +\(' 20
wait_for '\[x\] 4 Edit the exercise' 5
grep -q 'return 42' "$WORK/answer.lua" || fail "the editor did not change the exercise"
ok "e ran \$EDITOR; the save re-ran the check and it passed"

# a change made outside the shell is seen as well
sed -i 's/return 42/return 41/' "$WORK/answer.lua"
wait_for 'FAIL +\(' 20
wait_for 'saw: +41' 5
ok "a save from another editor re-runs the check"

keys k k a
wait_for 'Question 1/1' 5
keys B l u e Enter
wait_for 'PASS +\(' 20 # saving the last answer checks it
wait_for 'answer: Blue' 5
jq -e '.labs["00-shelltest"].steps.answer.answers.colour == "Blue"' "$XDG_STATE_HOME/mgpulab/progress.json" >/dev/null ||
    fail "the answer is not in progress.json"
ok "the answer is saved"

keys x
wait_for 'Reset lab 00-shelltest' 5
keys n
wait_gone 'Reset lab' 5
grep -q 'return 41' "$WORK/answer.lua" || fail "n reset the lab anyway"
keys x
wait_for 'Reset lab 00-shelltest' 5
keys y
wait_for 'reset: exercises back' 10
wait_for '\[ \] 4 Edit the exercise' 5
grep -q 'return 0' "$WORK/answer.lua" || fail "the exercise is not the original after the reset"
grep -q 'return 41' "$WORK/answer.lua.bak" || fail "the learner's copy was not kept as .bak"
sleep 1.5 # the original coming back must not count as a save
screen | grep -q 'running Edit the exercise' && fail "the reset triggered a run"
ok "x + y resets the lab, keeps the old copy; x + n does not"
keys q
wait_exit "$SHELL_PID" 10
