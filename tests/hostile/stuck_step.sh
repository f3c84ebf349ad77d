#!/usr/bin/env bash
# stuck_step.sh - an exercise stuck where its time budget cannot reach it (a
# pattern backtracking inside string.find) took the whole process down
# (issue 34, medium): the runaway watch ended `mgpulab run` with exit 124 and
# no progress written, and the interactive shell with it (terminal not
# restored, its /dev/shm telemetry table left behind, the attempt never
# saved). Steps run in a child process now: the child is stopped, the step
# ends with a verdict that says so, its attempt is recorded, and the command
# (or the shell) goes on to the next step.
. "$(dirname "$0")/hostile_lib.bash"
export MGPU_RUNAWAY_GRACE_S=1 MGPU_LAB_STEP_BUDGET_S=2
labs=$tmp/labs
export MGPULAB_LABS=$labs MGPULAB_CHECKS=$src/tests/data/labs/checks
mkdir -p "$labs/01-stuck/exercises"
echo 'return function() return string.find(string.rep("a", 1e5), ".-.-.-.-.-.-.-.-b") end' \
  >"$labs/01-stuck/exercises/p.lua"
cat >"$labs/01-stuck/lab.lua" <<'LUA'
return { title = "Stuck", steps = {
  { id = "p", title = "Backtrack", exercise = "p.lua", run = function(lab) return lab.load(lab.exercise)() end },
  { id = "after", title = "After", run = function(lab) return 1 end },
} }
LUA
progress=$XDG_STATE_HOME/mgpulab/progress.json

hrun out run 01-stuck --backend sim
[ $rc -eq 1 ] && ok || { bad "run of a stuck exercise: exit $rc (124: the whole command was stopped)"; cat out; }
has out "did not finish: its process stopped .*exceeded its time budget of 2 s" && ok || { bad "the verdict does not say what happened"; cat out; }
has out "step 2/2: After" && ok || { bad "the command did not go on to step 2"; cat out; }
python3 - "$progress" <<'PY' && ok || bad "the stuck attempt was not recorded"
import json, sys
s = json.load(open(sys.argv[1]))["labs"]["01-stuck"]["steps"]
assert s["p"]["state"] == "error" and s["p"]["attempts"] == 1, s["p"]
assert "did not finish" in s["p"]["message"], s["p"]
assert s["after"]["state"] == "read", s["after"]
PY

# --json: one document still, the step's state and what happened in it
hrun out run 01-stuck --step 1 --backend sim --json
[ $rc -eq 1 ] && python3 - out <<'PY' && ok || { bad "run --json of a stuck exercise: exit $rc"; cat out; }
import json, sys
d = json.load(open(sys.argv[1]))
s = d["steps"][0]
assert d["ok"] is False and s["state"] == "error", s
assert "did not finish" in s["message"], s
PY
# verify goes on to the lab's next step and fails
hrun out verify 01-stuck --backend sim
[ $rc -eq 1 ] && has out "^01-stuck +1 p +error +the step did not finish" && has out "^01-stuck +2 after +read" && ok ||
  { bad "verify of a stuck exercise: exit $rc"; cat out; }

# the shell: it stays up, shows the verdict, records the attempt, and its
# telemetry table goes when it quits
if command -v tmux >/dev/null; then
  sock=mgpu-stuck-$$
  tm() { tmux -L "$sock" "$@"; }
  tm new-session -d -s main -x 120 -y 40 "exec env NO_COLOR=1 XDG_STATE_HOME=$XDG_STATE_HOME MGPULAB_LABS=$labs \
MGPULAB_CHECKS=$MGPULAB_CHECKS MGPU_RUNAWAY_GRACE_S=1 MGPU_LAB_STEP_BUDGET_S=2 TERM=tmux-256color $(printf %q "$bin") \
--backend sim"
  pid=$(tm display-message -p -t main '#{pane_pid}')
  screen() { tm capture-pane -p -t main 2>/dev/null; }
  wait_for() { local end=$((SECONDS + $2)); while [ $SECONDS -lt $end ]; do screen | grep -Eq -- "$1" && return 0; sleep 0.2; done; return 1; }
  wait_for 'Stuck' 60 && tm send-keys -t main Enter && wait_for 'Backtrack' 30 && tm send-keys -t main r
  if wait_for 'did not finish' 120 && kill -0 "$pid" 2>/dev/null; then ok; else bad "the shell did not survive the stuck step"; screen; fi
  python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['labs']['01-stuck']['steps']['p']; assert s['attempts']==4, s" \
    "$progress" && ok || bad "the shell did not record the stuck attempt"
  # the next step runs in a new process, which goes when the shell quits
  tm send-keys -t main j r
  wait_for 'ended: read' 60 && ok || { bad "the shell did not run the next step"; screen; }
  kids=$(pgrep -P "$pid")
  [ -n "$kids" ] && ok || bad "no step runner under the shell"

  tm send-keys -t main q
  for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  for k in $kids; do kill -0 "$k" 2>/dev/null && { bad "the shell's step runner $k outlived it"; kill -9 "$k"; }; done
  kill -0 "$pid" 2>/dev/null && { bad "the shell did not quit"; kill -9 "$pid"; }
  # (the name carries the suite's MGPU_SHM_TAG when CTest sets one)
  ls /dev/shm 2>/dev/null | grep -qE "^mgpulab-tel-(${MGPU_SHM_TAG:-none}-)?$pid-" && bad "the shell left its telemetry table" || ok

  # the shell's cancel key on a step stuck where the cancel cannot reach
  # (its budget far off): the step's process is stopped, the step ends
  # cancelled, and the shell goes on
  tm new-session -d -s cancel -x 120 -y 40 "exec env NO_COLOR=1 XDG_STATE_HOME=$XDG_STATE_HOME MGPULAB_LABS=$labs \
MGPULAB_CHECKS=$MGPULAB_CHECKS MGPU_RUNAWAY_GRACE_S=1 MGPU_LAB_STEP_BUDGET_S=120 TERM=tmux-256color $(printf %q "$bin") \
--backend sim"
  pid=$(tm display-message -p -t cancel '#{pane_pid}')
  screen() { tm capture-pane -p -t cancel 2>/dev/null; }
  wait_for 'Stuck' 60 && tm send-keys -t cancel Enter && wait_for 'Backtrack' 30 && tm send-keys -t cancel r
  # the step is stuck once its process has spent half a second of CPU
  busy() { local k t; for k in $(pgrep -P "$pid"); do t=$(awk '{print $14}' /proc/$k/stat 2>/dev/null); [ "${t:-0}" -ge 50 ] && return 0; done; return 1; }
  for i in $(seq 300); do busy && break; sleep 0.2; done
  tm send-keys -t cancel c
  if wait_for 'did not stop within' 60 && kill -0 "$pid" 2>/dev/null; then ok; else bad "the shell's cancel did not stop the stuck step"; screen; fi
  python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['labs']['01-stuck']['steps']['p']; assert s['attempts']==5 and s.get('last_attempt', s['state'])=='cancelled', s" \
    "$progress" && ok || { bad "the shell did not record the cancelled attempt"; cat "$progress"; }
  tm send-keys -t cancel q
  for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$pid" 2>/dev/null && { bad "the shell did not quit after the cancel"; kill -9 "$pid"; }
  tm kill-server 2>/dev/null
fi
finish
