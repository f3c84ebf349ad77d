#!/bin/bash
# shell_walk.sh - small things a newcomer walk of labs 0-3 at 80x24 found
# (issue 10): a lab's table of words was right-aligned to its longest cell,
# which put lab 0's "backend  sim" 40 columns off an 80-column screen (words
# now align left, numbers right); the ? help did not list n (next step),
# which the status line offers after a pass.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_real_labs || { echo "ok - # SKIP the repository's labs are not here"; exit 0; }

start_shell 80 24 --backend sim --machine dgx-h100
wait_for 'Welcome' 20
keys Enter
wait_for '> Steps: 00-welcome' 5
keys j
wait_for '─ Backends: cuda, emulated nodes, sim ' 5
keys r
wait_for '(AWAITING|FAIL) +\(' 60
keys 3
wait_for '─ > 3 Results ─' 5
keys z
wait_for '│what +value +│' 5
wait_for '│backend +sim' 5
wait_for '│ranks / launcher +2 / local +│' 5
ok "a table of words aligns left: its values are on screen at 80 columns"
keys z
keys '?'
wait_for 'Help: keys' 5
wait_for '│   n +the next step' 5
ok "the help lists n"
keys Escape
wait_gone 'Help: keys' 5
keys q
wait_exit "$SHELL_PID" 10
