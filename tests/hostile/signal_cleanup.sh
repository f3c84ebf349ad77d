#!/usr/bin/env bash
# signal_cleanup.sh - a killed command takes what it made in shared places
# with it (issue 16 item 9): bench and spmd stopped by SIGINT, SIGTERM or
# SIGHUP left /tmp/mgpulab-XXXX/coord.sock behind, and a shell killed so
# left its /dev/shm/mgpulab-tel-* table (16 were found from dead shells).
# Every wait here waits for an event (a path appearing, a process ending),
# with a generous bound that only a hang reaches.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
mkdir -p t
echo 'while true do mgpu.comm():barrier() end' >spin.lua

# wait_path GLOB -> 0 once a path matches (bounded: 60 s of 0.05 s polls)
wait_path() { for _ in $(seq 1 1200); do compgen -G "$1" >/dev/null && return 0; sleep 0.05; done; return 1; }
# wait_gone PID -> 0 once the process has ended
wait_gone() { for _ in $(seq 1 1200); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done; return 1; }

# A script's background commands start with SIGINT ignored (no job
# control): give them the default action a terminal's Ctrl-C meets.
run_bg() { TMPDIR=$tmp/t env --default-signal=INT "$bin" "$@" </dev/null & }

for sig in INT TERM HUP; do
  for cmd in spmd bench; do
    rm -rf t/*
    if [ $cmd = spmd ]; then
      run_bg spmd spin.lua --backend sim --ranks 2 --time-limit 100 >out.$cmd 2>&1
    else
      run_bg bench all_reduce --backend sim --ranks 2 -b 8 -e 1G -f 2 -n 1000 >out.$cmd 2>&1
    fi
    pid=$!
    if ! wait_path "$tmp/t/mgpulab-*/coord.sock"; then bad "$cmd: no coordinator socket appeared"; kill -KILL $pid; continue; fi
    kill -$sig $pid
    if ! wait_gone $pid; then bad "$cmd: still running after SIG$sig"; kill -KILL $pid; continue; fi
    wait $pid; rc=$?
    left=$(ls -A t)
    [ -z "$left" ] && ok || bad "$cmd killed by SIG$sig left $left in TMPDIR"
    # it died of the signal (128 + n), or ended on its own cancel path: never 0
    [ $rc -ne 0 ] && ok || bad "$cmd killed by SIG$sig exited 0"
  done
done

# the shell's telemetry table in /dev/shm
if command -v tmux >/dev/null && [ -d /dev/shm ]; then
  for sig in HUP TERM; do
    sock=mgpu-sig-$$
    tmux -L $sock new-session -d -s main -x 120 -y 40 \
      "exec env TERM=tmux-256color XDG_STATE_HOME=$XDG_STATE_HOME $bin --backend sim --machine dgx-h100"
    shpid=$(tmux -L $sock display-message -p -t main '#{pane_pid}')
    # the name carries the suite's MGPU_SHM_TAG when CTest sets one
    tel="/dev/shm/mgpulab-tel-${MGPU_SHM_TAG:+$MGPU_SHM_TAG-}$shpid-*"
    if wait_path "$tel"; then
      kill -$sig "$shpid"
      wait_gone "$shpid" || bad "shell still running after SIG$sig"
      compgen -G "$tel" >/dev/null && bad "the shell killed by SIG$sig left its /dev/shm table" || ok
    else
      bad "the shell made no telemetry table in /dev/shm"
    fi
    tmux -L $sock kill-server 2>/dev/null
  done
fi
finish
