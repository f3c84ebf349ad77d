#!/usr/bin/env bash
# shm_cleanup.sh - what mgpulab makes in /dev/shm goes with it (issue 34,
# low): SIGQUIT left the shell's /dev/shm/mgpulab-tel-* table and its
# socket directory (only INT, TERM and HUP were handled); a signal 20-30 ms
# after the coordinator's socket appeared left a sim communicator's
# /dev/shm/mgpu-sim-* (rank 0 had made it and was killed with SIGKILL
# before every rank opened it); and a shell killed with SIGKILL (which no
# handler sees; shell_progress_kill.sh does it four times) left its table
# for ever. Names are scoped by MGPU_SHM_TAG, so other runs on the machine
# cannot disturb the counts.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
tag=h$$x$RANDOM # given only to the runs under test (not the suite's MGPU_SHM_TAG)
mkdir -p t
wait_path() { for _ in $(seq 1 1200); do compgen -G "$1" >/dev/null && return 0; sleep 0.05; done; return 1; }
wait_gone() { for _ in $(seq 1 1200); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done; return 1; }
sims() { ls /dev/shm | grep -c "^mgpu-sim-$tag-"; }
# until no process of this test's runs is left (its ranks end after their
# coordinator): those are the ones with our tag in their environment
tagged() { grep -lsa "MGPU_SHM_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null | grep -c .; }
wait_tagged_gone() { for _ in $(seq 1 1200); do [ "$(tagged)" = 0 ] && return 0; sleep 0.05; done; return 1; }

# 1. spmd signalled soon after its socket appears: no sim segment stays
echo 'local c = mgpu.comm(); local s = c:split(mgpu.rank % 2, mgpu.rank); while true do c:barrier() end' >spin.lua
trials=0
for sig in INT TERM QUIT HUP; do
  for delay in 0 0.01 0.02 0.03 0.05; do
    rm -rf t/*
    TMPDIR=$tmp/t MGPU_SHM_TAG=$tag env --default-signal=INT,QUIT "$bin" spmd spin.lua --backend sim --ranks 4 --time-limit 100 </dev/null >out 2>&1 &
    pid=$!
    wait_path "$tmp/t/mgpulab-*/coord.sock" || { bad "spmd: no socket"; kill -KILL $pid; continue; }
    sleep $delay
    kill -$sig $pid
    wait_gone $pid || { bad "spmd still running after SIG$sig"; kill -KILL $pid; }
    wait $pid 2>/dev/null
    wait_tagged_gone || bad "ranks still running 60 s after their coordinator died of SIG$sig"
    trials=$((trials + 1))
    [ -z "$(ls -A t)" ] || bad "spmd killed by SIG$sig after ${delay}s left $(ls -A t) in TMPDIR"
    n=$(sims)
    [ "$n" = 0 ] && ok || bad "spmd killed by SIG$sig after ${delay}s left $n /dev/shm/mgpu-sim-* segments"
  done
done
ls /dev/shm | grep "^mgpu-sim-$tag-" | while read -r f; do rm -f "/dev/shm/$f"; done
# the counts above are not vacuous: a segment does carry the tag (rank 0
# makes it while rank 1 is late to the communicator)
echo 'if mgpu.rank == 1 then local x = 0; for i = 1, 3e8 do x = x + i end end; mgpu.comm():barrier()' >late.lua
MGPU_SHM_TAG=$tag "$bin" spmd late.lua --backend sim --ranks 2 </dev/null >out 2>&1 &
pid=$!
wait_path "/dev/shm/mgpu-sim-$tag-*" && ok || bad "no sim segment carried the tag"
wait $pid || { bad "late.lua: exit $?"; cat out; }
[ "$(sims)" = 0 ] && ok || bad "a run that ended normally left a sim segment"

# 2. the shell: SIGQUIT and SIGUSR1 end it like SIGTERM; after SIGKILL the
#    next shell to start takes the dead one's table
if command -v tmux >/dev/null; then
  start() { # -> shpid
    tmux -L g$$ new-session -d -s main -x 120 -y 40 \
      "exec env TERM=tmux-256color TMPDIR=$tmp/t MGPU_SHM_TAG=$tag XDG_STATE_HOME=$XDG_STATE_HOME $bin --backend sim --machine dgx-h100"
    shpid=$(tmux -L g$$ display-message -p -t main '#{pane_pid}')
    wait_path "/dev/shm/mgpulab-tel-$tag-$shpid-*" || bad "the shell made no table"
  }
  for sig in QUIT USR1 KILL; do
    rm -rf t/*
    start
    kill -$sig "$shpid"
    wait_gone "$shpid" || bad "shell still running after SIG$sig"
    tmux -L g$$ kill-server 2>/dev/null
    if [ $sig = KILL ]; then
      dead=$shpid
      start # the next shell
      compgen -G "/dev/shm/mgpulab-tel-$tag-$dead-*" >/dev/null && bad "a shell killed with SIGKILL left its table to the next" || ok
      tmux -L g$$ kill-server 2>/dev/null
      wait_gone "$shpid"
    else
      compgen -G "/dev/shm/mgpulab-tel-$tag-$shpid-*" >/dev/null && bad "the shell killed by SIG$sig left its table" || ok
      [ -z "$(ls -A t)" ] && ok || bad "the shell killed by SIG$sig left $(ls -A t) in TMPDIR"
    fi
  done
  ls /dev/shm | grep "^mgpulab-tel-$tag-" | while read -r f; do rm -f "/dev/shm/$f"; done
fi
finish
