#!/bin/bash
# shell_dumb.sh - TERM=dumb (a terminal that cannot move the cursor) is
# refused with a clear message and exit status 2, as a non-tty is (issue
# 10, item 11); it used to draw one garbled line.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs
tm new-session -d -s main -x 100 -y 20 \
    "env TERM=dumb XDG_STATE_HOME=$XDG_STATE_HOME MGPULAB_LABS=$MGPULAB_LABS $(printf '%q' "$BIN") --backend sim; echo \"exit=\$?\"; sleep 60" ||
    fail "tmux did not start"
wait_for 'needs a terminal that can move the cursor, and TERM=dumb' 20
wait_for 'exit=2' 10
screen | grep -q 'Shell test lab' && fail "the shell drew its screen on a dumb terminal"
ok "TERM=dumb: a clear refusal, exit 2"
