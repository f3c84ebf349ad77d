#!/usr/bin/env bash
# report.sh - `mgpulab report`: one learner's progress (Markdown, JSON, a
# self-contained HTML page), --export for the instructor (learner, host,
# the machine each step ran on, the answers and how they were judged, the
# exercise files), and --class over tests/data/class (real exports of four
# people, one of them twice): the learner x step grid, reading steps read,
# the duplicate merged, the damaged and foreign files skipped with a reason,
# CSV/JSON/HTML, and usage errors. tests/cli/class_report.sh runs a whole
# simulated workshop.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d /tmp/mgpu-report-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state MGPULAB_LABS=$src/labs
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

# Progress to report: lab 0 run once (step 1 is read, 4 passes, 2 and 3 wait for the learner).
"$bin" run 0 --backend sim --machine single-gpu --json >/dev/null 2>&1
"$bin" hint 0 >/dev/null 2>&1

out=$("$bin" report 2>&1); rc=$?
check "report exits 0 (rc=$rc)" '[ $rc -eq 0 ]'
check "Markdown: the lab's table" 'grep -q "^## 00-welcome Welcome" <<<"$out" && grep -q "^| step | state | attempts | hints |" <<<"$out"'
check "Markdown: step 1 (a reading step) read after one attempt" 'grep -qE "^\| 1 .* \| read \| 1 \| [0-9]+ \|" <<<"$out"'
"$bin" report --format json >"$tmp/r.json"; rc=$?
check "JSON: the step states, attempts and hints as the progress file has them" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
lab = [l for l in d[\"labs\"] if l[\"id\"] == \"00-welcome\"][0]
s = {x[\"id\"]: x for x in lab[\"steps\"]}
first = lab[\"steps\"][0]
assert first[\"state\"] == \"read\" and first[\"attempts\"] == 1, first
assert sum(x[\"hints_taken\"] for x in lab[\"steps\"]) == 1, lab
assert d[\"format\"] == \"mgpulab-report\"
" "$tmp/r.json"'
"$bin" report --format html >"$tmp/r.html"; rc=$?
check "HTML: one page, no external resource" '[ $rc -eq 0 ] && grep -q "^<!DOCTYPE html>" "$tmp/r.html" && grep -q "</html>" "$tmp/r.html" && ! grep -qiE "(src|href)=" "$tmp/r.html"'
check "HTML: escaped text" '! grep -q "<script" "$tmp/r.html"'

# The export an instructor collects.
"$bin" run 0 --step 2 --backend sim --machine pcie-4gpu --answer backend=sim --answer gpus=8 --answer emulated=no \
    >/dev/null 2>&1
"$bin" run 0 --step 2 --backend sim --machine pcie-4gpu --answer gpus=4 >/dev/null 2>&1
"$bin" report --export "$tmp/ada.json" --name "Ada <Lovelace>" --id ada >"$tmp/o" 2>&1; rc=$?
check "--export exits 0 and says where" '[ $rc -eq 0 ] && grep -q "ada.json" "$tmp/o"'
check "export: learner, host, the machine of the latest run, each step's own" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"learner\"] == {\"name\": \"Ada <Lovelace>\", \"id\": \"ada\"}, d[\"learner\"]
assert d[\"version\"] == 2 and d[\"host\"] and d[\"labs\"]
assert (d[\"backend\"], d[\"machine\"]) == (\"sim\", \"pcie-4gpu\"), (d[\"backend\"], d[\"machine\"])
s = {x[\"id\"]: x for x in d[\"labs\"][0][\"steps\"]}
assert s[\"shell\"][\"ran_on\"] == \"sim single-gpu\" and s[\"backends\"][\"ran_on\"] == \"sim pcie-4gpu\", s
assert sorted(d[\"machines\"]) == [\"sim pcie-4gpu\", \"sim single-gpu\"], d[\"machines\"]
" "$tmp/ada.json"'
check "export: the answers, each judged answer, the exercise file (docs/classroom.md says so)" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
s = {x[\"id\"]: x for x in d[\"labs\"][0][\"steps\"]}
assert s[\"backends\"][\"answers\"] == {\"backend\": \"sim\", \"gpus\": \"4\", \"emulated\": \"no\"}, s[\"backends\"][\"answers\"]
log = [(e[\"q\"], e[\"answer\"], e[\"ok\"]) for e in s[\"backends\"][\"answer_log\"]]
assert (\"gpus\", \"8\", False) in log and (\"gpus\", \"4\", True) in log, log
assert s[\"backends\"][\"state\"] == \"passed\" and s[\"backends\"][\"passed_at\"] >= s[\"backends\"][\"opened\"] > 0
assert s[\"hello\"][\"exercise\"][\"file\"] == \"hello.lua\" and s[\"hello\"][\"exercise\"][\"text\"]
" "$tmp/ada.json"' 
check "docs/classroom.md says the export carries the answers" 'grep -q "answers" "$src/docs/classroom.md" && ! grep -q "answers are\s*never in it" "$src/docs/classroom.md"'
check "no temporary file left" '[ -z "$(ls "$tmp" | grep tmp-)" ]'
"$bin" report --export "$tmp/again.json" >/dev/null 2>&1
check "the name given once is kept for later exports" 'python3 -c "
import json, sys
assert json.load(open(sys.argv[1]))[\"learner\"] == {\"name\": \"Ada <Lovelace>\", \"id\": \"ada\"}
" "$tmp/again.json"'

# The class: four people (Grace exported twice), one damaged upload, one foreign file.
out=$("$bin" report --class "$src/tests/data/class" 2>"$tmp/err"); rc=$?
check "--class exits 0 despite the bad files (rc=$rc)" '[ $rc -eq 0 ]'
check "--class: 4 learners (Grace's two exports are one)" 'grep -q "^# mgpulab class: 4 learners$" <<<"$out"'
check "--class: damaged file skipped with where it broke" 'grep -q "skipped .*damaged.json: damaged: line" "$tmp/err" && grep -q "^- damaged.json: damaged" <<<"$out"'
check "--class: foreign file skipped" 'grep -q "skipped .*foreign.json: foreign: not an mgpulab report" "$tmp/err"'
check "--class: the grid, a row per learner" 'grep -qE "^\| Alan Turing \| read \| passed 3 \| failed 2 \| read \| 20[0-9-]+ [0-9:]+ \|$" <<<"$out" && grep -qE "^\| Grace Hopper \| read \| failed 1 \| - \| - \|" <<<"$out"'
check "--class: reading steps count as read" 'grep -qE "^\| 1 Finding your way around the shell \| 4/4 read \|" <<<"$out"'
check "--class: who is stuck where" 'grep -qE "^\| 3 Hands-on: every rank says who it is \| 2/4 passed \| 0 \| 1 \| 1 \| 5 \| 2 \(1 solution shown\) \| [0-9]+ s \| Alan Turing \|$" <<<"$out"'
check "--class: the older export named" 'grep -q "^- grace2.json: an older export of learner .grace. than grace.json, which is shown" <<<"$out"'
check "--class: a | in a name escaped" 'grep -qF "| Barbara \| Liskov | read | passed 1 | passed 1 +sol | - |" <<<"$out"'
csv=$("$bin" report --class "$src/tests/data/class" --format csv 2>/dev/null)
check "CSV header and a row" 'grep -q "^learner_id,name,lab,step,title,state,attempts,hints,solution_shown,last_run,opened,passed_at,time_on_task_s,ran_on,message,verified,verify_note$" <<<"$csv" && grep -q "^\"alan\",\"Alan Turing\",\"00-welcome\",\"hello\",\"Hands-on: every rank says who it is\",failed,2,2,0," <<<"$csv"'
"$bin" report --class "$src/tests/data/class" --json >"$tmp/c.json" 2>/dev/null
check "JSON: learners, skipped, steps" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert [l[\"name\"] for l in d[\"learners\"]] == [\"Ada Lovelace\", \"Alan Turing\", \"Barbara | Liskov\", \"Grace Hopper\"], d[\"learners\"]
assert sorted(s[\"file\"] for s in d[\"skipped\"]) == [\"damaged.json\", \"foreign.json\"]
assert len(d[\"steps\"]) == 8 and d[\"steps\"][0][\"done\"] == 4 and d[\"steps\"][2][\"stuck\"] == [\"Alan Turing\"]
" "$tmp/c.json"'
"$bin" report --class "$src/tests/data/class" --format html >"$tmp/c.html" 2>/dev/null
check "HTML class page" 'grep -q "<h1>mgpulab class: 4 learners</h1>" "$tmp/c.html" && ! grep -qiE "(src|href)=" "$tmp/c.html"'
mkdir "$tmp/empty"
"$bin" report --class "$tmp/empty" >/dev/null 2>"$tmp/err"; rc=$?
check "an empty class directory exits 1 saying so" '[ $rc -eq 1 ] && grep -q "no exported report" "$tmp/err"'

# Usage errors.
"$bin" report --format pdf >/dev/null 2>&1; rc=$?
check "bad --format exits 2" '[ $rc -eq 2 ]'
"$bin" report --format csv >/dev/null 2>&1; rc=$?
check "csv without --class exits 2" '[ $rc -eq 2 ]'
"$bin" report --format text >/dev/null 2>&1; rc=$?
check "text without --class exits 2" '[ $rc -eq 2 ]'
"$bin" report --class "$tmp/empty" --export x.json >/dev/null 2>&1; rc=$?
check "--class with --export exits 2" '[ $rc -eq 2 ]'

echo "report: $pass passed, $fail failed"
[ $fail -eq 0 ]
