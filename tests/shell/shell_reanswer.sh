#!/bin/bash
# shell_reanswer.sh - answering a question again (issue 10 walk): the prompt
# shows the last answer selected and the first key typed replaces it (it was
# pre-filled, and typing appended: "red" + "b" = "redb"); Backspace and ^U
# clear it; End keeps it for editing at its end; Enter keeps it as it is.
# The ? help says so.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs
start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
keys j
wait_for '─ Answer a question ' 5
keys a
wait_for 'Question 1/1' 5
screen | grep -q 'your last answer' && fail "a first answer has no last answer to show"
keys r e d Enter
wait_for 'FAIL +\(' 20
wait_for 'answer: red' 5
ok "a first answer"

keys a
wait_for 'Question 1/1' 5
wait_for '> red *│' 5
wait_for 'your last answer: Enter keeps it, typing replaces it, End edits it' 5
keys b
wait_for '> b_' 5
screen | grep -q 'redb' && fail "typing appended to the old answer"
ok "the last answer comes up selected; the first key typed replaces it"
keys l
wait_for '> bl_' 5
keys BSpace
wait_for '> b_' 5
ok "once typing, Backspace drops one character"
keys Escape
wait_gone 'Question 1/1' 5

keys a
wait_for '> red *│' 5
keys BSpace
wait_for '> _' 5
ok "Backspace on the selected answer clears it"
keys C-u
keys Escape
wait_gone 'Question 1/1' 5

keys a
wait_for '> red *│' 5
keys End
wait_for '> red_' 5
keys d
wait_for '> redd_' 5
keys C-u
wait_for '> _' 5
ok "End edits the last answer at its end; ^U clears the line"
keys b l u e Enter
wait_for 'PASS +\(' 20
wait_for 'answer: blue' 5

keys a
wait_for '> blue *│' 5
keys Enter
wait_for 'PASS +\(' 20
wait_for 'answer: blue' 5
ok "Enter keeps the last answer"

keys '?'
wait_for 'Help: keys' 5
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do keys j; done
wait_for 'comes up selected: Enter keeps it, typing' 5
ok "the help says how the answer prompt works"
keys Escape
wait_gone 'Help: keys' 5
keys q
wait_exit "$SHELL_PID" 10
