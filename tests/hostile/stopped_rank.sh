#!/usr/bin/env bash
# stopped_rank.sh - what a failed run says of a rank that sent no flight
# record (issue 16 item 17). A rank stopped with SIGSTOP cannot beat nor
# answer the abort; the run said "rank 1 sent no flight record (it died)"
# of it, alive and stopped. It must say the rank was stopped. (Every rank
# loops, so rank 1's silence is what the coordinator notices; the budget
# of 100 s is never reached.) Then a rank killed while rank 0 waits in a
# collective: rank 0's collective must say it was aborted and after how
# long, not that it "did not complete within 120 s" seconds after it began.
# Last, a rank that simply finishes its script while its peer waits for it
# in a collective (issue 34, second pass): the peer said it "died". It must
# say the rank finished its script (the world) or destroyed the split
# communicator, and a killed rank still died.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
mkdir -p t
cat >stop.lua <<'LUA'
local c = mgpu.comm()
c:all_reduce(mgpu.tensor(4))
if mgpu.rank == 1 then print("rank 1 is in its loop") end
while true do end
LUA
TMPDIR=$tmp/t timeout -s KILL 120 "$bin" spmd stop.lua --backend sim --ranks 3 --timeout 3 --time-limit 100 \
  >out 2>&1 </dev/null &
spmd=$!
until has out 'rank 1 is in its loop' || ! kill -0 $spmd 2>/dev/null; do sleep 0.05; done  # the event
# rank 1's worker: the process whose environment names this run's socket
rank_pid() {
  python3 - "$1" <<'PY'
import os, sys
for p in os.listdir("/proc"):
    try: env = open("/proc/%s/environ" % p, "rb").read().split(b"\0")
    except OSError: continue
    if b"MGPU_RANK=1" in env and any(e.startswith(b"MGPU_COORD=unix:" + sys.argv[1].encode() + b"/") for e in env):
        print(p)
PY
}
pid=$(rank_pid "$tmp/t")
[ -n "$pid" ] && kill -STOP $pid
wait $spmd; rc=$?
[ -n "$pid" ] && kill -CONT $pid 2>/dev/null
if [ -n "$pid" ] && [ $rc -eq 1 ] && has out 'rank 1 hung: no heartbeat .*the process is stopped' &&
   has out 'rank 1 sent no flight record \(stopped: SIGSTOP' && ! has out 'it died'; then ok
else bad "a stopped rank (pid ${pid:-not found}, exit $rc) was not said to be stopped"; grep -v '^\[rank' out | tail -6; fi

# rank 1 of 2 killed (SIGKILL) while rank 0 waits in all_reduce #2
mkdir -p t2
cat >kill.lua <<'LUA'
local c = mgpu.comm()
c:all_reduce(mgpu.tensor(4))
if mgpu.rank == 1 then print("rank 1 is in its loop") while true do end end
c:all_reduce(mgpu.tensor(4))
LUA
TMPDIR=$tmp/t2 timeout -s KILL 120 "$bin" spmd kill.lua --backend sim --ranks 2 --timeout 120 --time-limit 100 \
  >out2 2>&1 </dev/null &
spmd=$!
until has out2 'rank 1 is in its loop' || ! kill -0 $spmd 2>/dev/null; do sleep 0.05; done
pid=$(rank_pid "$tmp/t2")
[ -n "$pid" ] && kill -KILL $pid
wait $spmd; rc=$?
if [ -n "$pid" ] && [ $rc -eq 1 ] && has out2 'rank 1 sent no flight record \(killed by signal 9' &&
   ! has out2 'within 120 s' &&
   { has out2 'all_reduce #2 on comm world was aborted after [0-9.]+ s' ||
     has out2 "communicator 'world' was aborted" ||   # (rank 0 not yet in the call)
     # rank 0's own dead-peer probe (every 100 ms) saw the death before the
     # coordinator's abort reached it: just as specific, with its wait
     has out2 "all_reduce #2 on 'world': rank 1 \(pid $pid\) died while this rank waited for it \(waited [0-9.]+ s\)"; }; then ok
else bad "a killed rank (pid ${pid:-not found}, exit $rc): rank 0's aborted collective or the flight line is wrong"
  grep -v '^\[rank' out2 | tail -6; fi
# rank 0 returns early; rank 1 calls all_reduce and waits for it
cat >early.lua <<'LUA'
local c = mgpu.comm()
local t = mgpu.tensor(4):fill(1)
if mgpu.rank == 0 then return end
c:all_reduce(t, t)
LUA
hrun out3 spmd early.lua --backend sim --ranks 2 --timeout 60
if [ $rc -eq 1 ] && has out3 "all_reduce #1 on 'world': rank 0 \\(pid [0-9]+\\) finished its script and exited while this rank waited for it" &&
   ! has out3 "died while"; then ok
else bad "a rank that finished its script early (exit $rc) is not said to have finished"; grep -v '^\[rank' out3 | tail -6; fi
# rank 0 destroys a split communicator rank 1 then waits in
cat >split.lua <<'LUA'
local c = mgpu.comm()
local sub = c:split(0, mgpu.rank, "pair")
local t = mgpu.tensor(4):fill(1)
sub:all_reduce(t, t)
mgpu.synchronize()
if mgpu.rank == 0 then sub:destroy(); return end
sub:all_reduce(t, t)
LUA
hrun out4 spmd split.lua --backend sim --ranks 2 --timeout 60
if [ $rc -eq 1 ] && has out4 "rank 0 \\(pid [0-9]+\\) destroyed this communicator \\(comm:destroy, or the end of its script\\) and exited" &&
   ! has out4 "died while"; then ok
else bad "a rank that destroyed a split communicator (exit $rc) is not said to have"; grep -v '^\[rank' out4 | tail -6; fi
finish
