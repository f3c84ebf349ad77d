#!/usr/bin/env bash
# progress_race.sh - two commands at once: a long `run` of one lab and a
# quick `run` of another that saves in between. The long one's save dropped
# the other's pass and answer (issue 16 item 5). The long step waits for a
# file the test creates once the quick run has finished: events, not time.
. "$(dirname "$0")/hostile_lib.bash"
labs=$tmp/labs
export MGPULAB_LABS=$labs MGPULAB_CHECKS=$src/tests/data/labs/checks
mkdir -p "$labs/01-quick" "$labs/02-slow/exercises"
cat >"$labs/01-quick/lab.lua" <<'LUA'
return { title = "Quick", steps = { { id = "q", title = "Q",
  questions = { { id = "color", ask = "Which colour?" } },
  check = function(lab) return checks.equals{ value = lab.answer("color"), expected = "blue", what = "colour" } end } } }
LUA
echo 'return 1' >"$labs/02-slow/exercises/w.lua"
cat >"$labs/02-slow/lab.lua" <<'LUA'
return { title = "Slow", steps = { { id = "s", title = "S", exercise = "w.lua",
  run = function(lab)
    local go = lab.exercise:gsub("w%.lua$", "go")
    lab.log("waiting")
    while not pcall(lab.read, go) do end
    return true
  end,
  check = function(lab) return { ok = true, msg = "slow done" } end } } }
LUA
hrun "$tmp/l" list
ws=$XDG_STATE_HOME/mgpulab/work/02-slow
[ -f "$ws/w.lua" ] && ok || { bad "no workspace for the slow lab"; cat "$tmp/l"; }
# the slow run: started, then wait until its step is running
timeout -s KILL 120 "$bin" run 2 --backend sim >"$tmp/slow" 2>&1 &
slow=$!
for _ in $(seq 1 1200); do has "$tmp/slow" "waiting" && break; kill -0 $slow 2>/dev/null || break; sleep 0.1; done
has "$tmp/slow" "waiting" && ok || { bad "the slow step never started"; cat "$tmp/slow"; }
# the quick run passes lab 1 and saves while the slow one holds its copy
hrun "$tmp/quick" run 1 --answer color=blue
[ $rc -eq 0 ] && has "$tmp/quick" "^PASS" && ok || { bad "quick run: exit $rc"; cat "$tmp/quick"; }
touch "$ws/go"
wait $slow; src_rc=$?
[ $src_rc -eq 0 ] && ok || { bad "slow run: exit $src_rc"; cat "$tmp/slow"; }
p=$XDG_STATE_HOME/mgpulab/progress.json
python3 - "$p" <<'PY' && ok || { bad "a run overwrote the other's progress"; cat "$p"; }
import json, sys
d = json.load(open(sys.argv[1]))["labs"]
q = d["01-quick"]["steps"]["q"]; s = d["02-slow"]["steps"]["s"]
assert q["state"] == "passed" and q["answers"]["color"] == "blue", q
assert s["state"] == "passed", s
PY
finish
