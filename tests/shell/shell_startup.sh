#!/bin/bash
# shell_startup.sh - start-up problems are shown, not fatal: a damaged
# progress file is kept aside and reported in a dialog; no labs gives a
# message that says where the shell looked; the first frame comes at once.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs

mkdir -p "$XDG_STATE_HOME/mgpulab"
echo '{"labs": {"00-shelltest": ' >"$XDG_STATE_HOME/mgpulab/progress.json" # cut short
start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'Your progress' 20
ls "$XDG_STATE_HOME/mgpulab" | grep -q 'damaged' || fail "the damaged progress file was not kept aside"
ok "damaged progress: kept aside and reported in a dialog"
keys Escape
wait_gone 'Your progress' 5
wait_for '\[ \] +0 Shell test lab' 5
keys q
wait_exit "$SHELL_PID" 10

export MGPULAB_LABS="$TMPD/no-such-labs"
start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'No labs' 20
wait_for 'no-such-labs' 5
wait_for 'no labs found' 5
ok "no labs: a message naming where it looked"
keys q
wait_exit "$SHELL_PID" 10

mkdir -p "$TMPD/empty-labs"
export MGPULAB_LABS="$TMPD/empty-labs"
start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'No labs found in .*empty-labs' 20
ok "an empty labs directory: a message naming it"
keys q
wait_exit "$SHELL_PID" 10

# the shell's own first-frame time (bench/shell_perf.sh reports it; here
# only a generous bound, the machine may be loaded by other tests)
use_test_labs
tm kill-session -t main 2>/dev/null
tm new-session -d -s main -x 120 -y 40 \
    "exec env MGPU_SHELL_PERF=$TMPD/perf XDG_STATE_HOME=$XDG_STATE_HOME MGPULAB_LABS=$MGPULAB_LABS $(printf %q "$BIN") --backend sim"
SHELL_PID=$(tm display-message -p -t main '#{pane_pid}')
wait_for 'SIMULATED' 10
ms=$(awk '/^first_frame_ms /{print $2}' "$TMPD/perf")
[ -n "$ms" ] || fail "MGPU_SHELL_PERF file has no first_frame_ms"
awk -v m="$ms" 'BEGIN{exit !(m < 2000)}' || fail "first frame after ${ms} ms"
ok "first frame after $ms ms (target 150 ms: bench/shell_perf.sh)"
keys q
wait_exit "$SHELL_PID" 10
