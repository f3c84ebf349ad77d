#!/usr/bin/env bash
# sandbox_budget.sh - scripts that escaped the Lua time budget and hung the
# run for ever (issue 16 item 2): a __gc finalizer that loops (finalizers
# run with hooks off, at lua_close with no budget at all), string.rep in a
# loop (C work between hook checks), and a backtracking pattern (C work that
# never returns to the VM) - in an SPMD script, a lab and a learner's
# exercise. Each must end with the budget's message, never hang.
. "$(dirname "$0")/hostile_lib.bash"
# The runaway watch stops a stuck process 1 s after its budget instead of
# the default's 10 (test_lua_sandbox holds the default): the stuck cases
# here spin the CPU until then. Likewise a lab step's budget is 2 s, not
# 10: verify of the backtracking exercise spins until it ends.
export MGPU_RUNAWAY_GRACE_S=1 MGPU_LAB_STEP_BUDGET_S=2
cd "$tmp"
echo 'setmetatable({}, {__gc = function() while true do end end}); collectgarbage()' >gc.lua
echo 'local t = setmetatable({}, {__gc = function() while true do end end})' >gcclose.lua
echo 'while true do local s = string.rep("z", 1e8) end' >rep.lua
echo 'print(string.find(string.rep("a", 1e5), ".-.-.-.-.-.-.-.-b"))' >pat.lua
for f in gc gcclose; do
  hrun out spmd $f.lua --backend sim --ranks 2 --time-limit 1
  [ $rc -eq 1 ] && has out "__gc finalizers are not available" && ok || { bad "spmd $f.lua: exit $rc"; cat out; }
done
hrun out spmd rep.lua --backend sim --ranks 2 --time-limit 1
[ $rc -eq 1 ] && has out "time budget of 1 s" && ok || { bad "spmd rep.lua: exit $rc"; cat out; }
hrun out spmd pat.lua --backend sim --ranks 2 --time-limit 1
[ $rc -eq 1 ] && has out "exceeded its time budget of 1 s" && ok || { bad "spmd pat.lua: exit $rc"; cat out; }

# labs: one whose lab.lua leaves a looping finalizer (it hung every list),
# one whose exercise backtracks in a pattern (verify hung)
labs=$tmp/labs
export MGPULAB_LABS=$labs MGPULAB_CHECKS=$src/tests/data/labs/checks
mkdir -p "$labs/01-gc" "$labs/02-pattern/exercises"
echo 'setmetatable({}, {__gc = function() while true do end end})
return { title = "GC", steps = { { id = "a", title = "A" } } }' >"$labs/01-gc/lab.lua"
echo 'return function() return string.find(string.rep("a", 1e5), ".-.-.-.-.-.-.-.-b") end' \
  >"$labs/02-pattern/exercises/p.lua"
echo 'return { title = "Pattern", steps = { { id = "p", title = "P", exercise = "p.lua",
  run = function(lab) return lab.load(lab.exercise)() end } } }' >"$labs/02-pattern/lab.lua"
hrun out list
[ $rc -eq 0 ] && has out "01-gc +BROKEN .*__gc finalizers are not available" && ok || { bad "list with a __gc lab: exit $rc"; cat out; }
hrun out verify 2 --backend sim
[ $rc -ne 0 ] && [ $rc -ne 137 ] && has out "exceeded its time budget" && ok || { bad "verify of a backtracking exercise: exit $rc"; cat out; }

# Ctrl-C during a lab step ends it: a Lua loop at its next instruction (it
# ran on to the step's budget), a pattern stuck in C with the process (it
# ignored SIGINT until the budget's watch). SIGINT is sent once the step
# has started; a command that ignores it is cut by SIGKILL (137).
mkdir -p "$labs/03-loop"
echo 'return { title = "Loop", steps = { { id = "l", title = "L", run = function(lab) while true do end end } } }' \
  >"$labs/03-loop/lab.lua"
# The step has started when its exercise is in the workspace (verify's
# output is buffered until it ends).
interrupt() { # LAB COMMAND -> rc, out
  rm -rf "$XDG_STATE_HOME/mgpulab/work"
  timeout -s KILL 120 "$bin" "$2" "$1" --backend sim >out 2>&1 </dev/null &
  local pid=$! i
  for i in $(seq 600); do
    { [ "$1" = 3 ] && grep -q "step 1/1" out; } || [ -n "$(find "$XDG_STATE_HOME/mgpulab/work" -name p.lua 2>/dev/null)" ] && break
    sleep 0.1
  done
  sleep 0.2 # into the step's Lua
  kill -INT $pid 2>/dev/null
  wait $pid; rc=$?
}
interrupt 3 run
[ $rc -ne 137 ] && has out "^CANCELLED" && ! has out "time budget" && ok || { bad "SIGINT in a looping lab step: exit $rc"; cat out; }
# (a SIGINT that lands before the pattern starts cancels the step instead).
# The step runs in a child process (issue 34): the stuck child is stopped,
# the command says so as the step's verdict and goes on.
stopped() { [ $rc -ne 137 ] && ! has out "time budget" && { has out "interrupted, but the script is stuck" ||
  has out "^CANCELLED"; }; }
interrupt 2 run
stopped && ok || { bad "SIGINT in a backtracking exercise: exit $rc"; cat out; }
interrupt 2 verify
stopped && ok || { bad "SIGINT in verify of a backtracking exercise: exit $rc"; cat out; }
finish
