#!/bin/bash
# shell_progress_kill.sh - progress survives SIGKILL: run steps, kill -9 the
# shell while a step runs and saves, restart: progress.json parses and the
# step states on screen are the saved ones.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs
PROG="$XDG_STATE_HOME/mgpulab/progress.json"

# the state progress.json holds for a step of the test lab ("new" if none)
saved_state() {
    jq -r --arg s "$1" '.labs["00-shelltest"].steps[$s].state // "new"' "$PROG"
}
mark_of() {
    case $1 in
    passed) echo '\[x\]' ;; failed) echo '\[!\]' ;; error) echo '\[E\]' ;;
    cancelled) echo '\[-\]' ;; read) echo '\(\*\)' ;; *) echo '\[ \]' ;;
    esac
}

start_shell 120 40 --backend sim --machine dgx-h100
wait_for '\[ \] +0 Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
keys r
wait_for '\(\*\) 1 Read this' 20
keys j a
wait_for 'Question 1/1' 5
keys blue Enter
wait_gone 'Question 1/1' 5
keys r
wait_for '\[x\] 2 Answer a question' 20
ok "the reading step is read, the question passed"

# kill -9 at several moments of the quick benchmark's run and save
keys j
for delay in 0.05 0.2 0.5 1.5; do
    wait_for '\[.\] 3 A quick all-reduce' 5
    keys r
    sleep "$delay"
    kids=$(pgrep -P "$SHELL_PID" | tr '\n' ' ')
    kill -9 "$SHELL_PID"
    wait_exit "$SHELL_PID" 5
    # its rank workers lose their coordinator; end any still there
    for k in $kids; do kill -9 "$k" 2>/dev/null; done
    jq -e . "$PROG" >/dev/null || fail "progress.json does not parse after kill -9 at ${delay}s"
    ls "$XDG_STATE_HOME/mgpulab" | grep -q damaged && fail "progress was set aside as damaged"
    [ "$(saved_state read)" = read ] || fail "step read lost its progress (now $(saved_state read))"
    [ "$(saved_state answer)" = passed ] || fail "step answer lost its progress (now $(saved_state answer))"
    ok "kill -9 ${delay}s into a run: progress.json parses, earlier steps kept"

    start_shell 120 40 --backend sim --machine dgx-h100
    wait_for 'Shell test lab' 20
    keys Enter
    wait_for 'Steps: 00-shelltest' 5
    i=1
    for s in read answer bench exercise long; do
        st=$(saved_state $s)
        wait_for "$(mark_of "$st") $i " 5
        i=$((i + 1))
    done
    ok "after restart the screen shows the saved states ($(saved_state bench) for the benchmark)"
    # select step 3 again for the next round
    keys Escape Enter
    for n in $(seq 1 10); do keys k; done
    keys j j
done
keys q
wait_exit "$SHELL_PID" 10
