#!/usr/bin/env bash
# progress_counters.sh - commands that count at once (issue 34, medium): 4x10
# parallel `hint 1 --step 2` left hints_taken at 14-15 of 40, and parallel
# runs left attempts at 21 of 40: the progress file's three-way merge kept
# the last writer's count. Counts merge as increments now: every hint and
# every run is counted, whichever command saves last.
. "$(dirname "$0")/hostile_lib.bash"
labs=$tmp/labs
export MGPULAB_LABS=$labs MGPULAB_CHECKS=$src/tests/data/labs/checks
mkdir -p "$labs/01-count"
cat >"$labs/01-count/lab.lua" <<'LUA'
return { title = "Count", steps = {
  { id = "first", title = "First", run = function(lab) return 1 end },
  { id = "c", title = "Counted", hints = { "one", "two", "three" },
    run = function(lab) return 1 end,
    check = function(lab, r) return { ok = r == 1, msg = "counted" } end },
} }
LUA
hrun "$tmp/l" list
[ $rc -eq 0 ] && ok || { bad "list: exit $rc"; cat "$tmp/l"; }

# four writers, each taking ten hints and running the step ten times, all
# on the same step at once: both counts in one step object
writer() {
  for _ in $(seq 10); do
    timeout -s KILL 120 "$bin" hint 1 --step 2 >/dev/null 2>&1 </dev/null || echo "hint exit $?" >>"$tmp/errors"
    timeout -s KILL 120 "$bin" run 1 --step 2 --backend sim >/dev/null 2>&1 </dev/null || echo "run exit $?" >>"$tmp/errors"
  done
}
for w in 1 2 3 4; do writer & done
wait
[ ! -s "$tmp/errors" ] && ok || { bad "a command failed"; sort "$tmp/errors" | uniq -c; }
p=$XDG_STATE_HOME/mgpulab/progress.json
python3 - "$p" <<'PY' && ok || { bad "counts were lost"; cat "$p"; }
import json, sys
s = json.load(open(sys.argv[1]))["labs"]["01-count"]["steps"]["c"]
assert (s.get("hints_taken"), s.get("attempts")) == (40, 40), \
    "hints_taken %s, attempts %s of 40" % (s.get("hints_taken"), s.get("attempts"))
assert s["state"] == "passed", s
PY
# and a file a later command reads counts on from there
hrun "$tmp/h" hint 1 --step 2
python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['labs']['01-count']['steps']['c']; assert s['hints_taken']==41, s" \
  "$p" && ok || { bad "the next hint did not count on from 40"; cat "$p"; }
finish
