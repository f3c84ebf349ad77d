#!/usr/bin/env bash
# class_report.sh - a workshop of ten simulated learners (tests/cli/
# class_lib.bash: real mgpulab runs on the sim under a class configuration
# with a roster, exports collected in one folder) and `mgpulab report
# --class` over it, asserted cell by cell: the learner x step grid in
# Markdown, text, CSV, JSON and HTML; reading steps read; the non-starter;
# the duplicate merged (newest wins) and the two people under one name told
# apart; the learner on another machine, the forged progress file, the
# hand-edited export and the learner off the roster named, not counted; time
# on task from first open to pass; per-question right and wrong answers; a
# '|' in a name; --verify running every claimed pass again (verified, failed
# on re-run, unverifiable).
set -u
bin=$1
src=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d /tmp/mgpu-class-report.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export MGPULAB_LABS=$src/labs TZ=UTC XDG_CONFIG_HOME=$tmp/config
unset MGPULAB_CHECKS
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { if eval "$2"; then ok; else bad "$1"; fi; }
source "$(dirname "$0")/class_lib.bash"

class_config "$tmp/class.json"
make_class "$tmp/share"
export XDG_STATE_HOME=$tmp/instructor USER=teacher

# --- the exports say what ran where, and carry the answers and the work ---
check "an export records the machine each step ran on (linus: --machine pcie-4gpu)" 'python3 - "$tmp/share/linus.json" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
steps = d["labs"][0]["steps"]
assert [s.get("ran_on") for s in steps] == ["sim pcie-4gpu"] * 4, [s.get("ran_on") for s in steps]
assert d["backend"] == "sim" and d["machine"] == "pcie-4gpu", (d["backend"], d["machine"])
PY'
check "an export carries the answers, how each was judged, and the exercise file" 'python3 - "$tmp/share/alan.json" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["id"]: x for x in d["labs"][0]["steps"]}
assert s["backends"]["answers"] == {"backend": "sim", "gpus": "8", "emulated": "no"}, s["backends"]["answers"]
log = [(e["q"], e["answer"], e["ok"]) for e in s["backends"]["answer_log"] if e["q"] == "gpus"]
assert log == [("gpus", "4", False), ("gpus", "16", False), ("gpus", "8", True)], log
assert s["hello"]["exercise"]["file"] == "hello.lua" and "mgpu" in s["hello"]["exercise"]["text"], s["hello"].get("exercise")
assert s["shell"]["reading"] is True and s["shell"]["state"] == "read"
PY'

out=$("$bin" report --class "$tmp/share" 2>"$tmp/err"); rc=$?
check "--class exits 0 (rc=$rc: $(head -3 "$tmp/err"))" '[ $rc -eq 0 ]'
echo "$out" >"$tmp/class.md"
check "the title counts people, not files, and the roster" 'grep -q "^# mgpulab class .Test class.: 10 learners (9 on the roster, 1 not started), on sim dgx-h100$" <<<"$out"'

# The grid, cell by cell: learner -> the lab's cells (the last activity apart).
grid() { python3 - "$tmp/class.md" "$1" <<'PY'
import sys
text, lab = open(sys.argv[1]).read().split("\n"), sys.argv[2]
start = [i for i, l in enumerate(text) if l.startswith("## " + lab)][0]
rows, i = {}, start + 2
header = text[i]
i += 2
while i < len(text) and text[i].startswith("| "):
    cells = [c.strip().replace("\\|", "|") for c in text[i].replace("\\|", "\x00").strip("|").split("|")]
    cells = [c.replace("\x00", "|") for c in cells]
    rows[cells[0]] = cells[1:-1] + [("time" if cells[-1] != "-" else "-")]
    i += 1
print(header)
for k, v in rows.items(): print(k + " => " + " ; ".join(v))
PY
}
grid 00-welcome >"$tmp/g0"
grid 01-topology >"$tmp/g1"
check "lab 0's columns are its steps" 'head -1 "$tmp/g0" | grep -qF "| learner | 1 shell | 2 backends | 3 hello | 4 progress | last activity |"'
cell_rows() { # FILE then lines "NAME => c1 ; c2 ; ..."
    local f=$1; shift
    for want in "$@"; do
        grep -qxF -- "$want" "$f" || { echo "  want: $want"; echo "  got:  $(grep -F -- "${want%% =>*} =>" "$f")"; return 1; }
    done
}
check "lab 0 grid, row by row" 'cell_rows "$tmp/g0" \
  "Ada Lovelace => read ; passed 1 ; passed 2 ; read ; time" \
  "Alan Turing => read ; passed 3 ; failed 2 ; read ; time" \
  "Grace Hopper (grace) => read ; failed 1 ; - ; - ; time" \
  "Grace Hopper (ghopper) => read ; - ; - ; - ; time" \
  "Linus Torvalds => other machine ; other machine ; other machine ; other machine ; time" \
  "Margaret Hamilton => edited ; edited ; edited ; edited ; time" \
  "Katherine Johnson => - ; - ; - ; - ; -" \
  "Barbara | Liskov => read ; passed 1 ; passed 1 +sol ; - ; time" \
  "Dennis Ritchie => read ; - ; invalid ; invalid ; time" \
  "Ken Thompson => read ; - ; - ; - ; time"'
check "lab 1 grid, row by row" 'cell_rows "$tmp/g1" \
  "Ada Lovelace => passed 1 ; - ; - ; - ; time" \
  "Alan Turing => awaiting 1 ; - ; - ; - ; time" \
  "Grace Hopper (grace) => - ; - ; - ; - ; -" \
  "Margaret Hamilton => edited ; edited ; edited ; edited ; time" \
  "Katherine Johnson => - ; - ; - ; - ; -" \
  "Ken Thompson => - ; - ; - ; - ; -"'
check "the roster's order, then those off it" '[ "$(sed -n "2,11p" "$tmp/g0" | sed "s/ =>.*//" | tr "\n" "|")" = "Ada Lovelace|Alan Turing|Grace Hopper (grace)|Grace Hopper (ghopper)|Linus Torvalds|Margaret Hamilton|Katherine Johnson|Barbara | Liskov|Dennis Ritchie|Ken Thompson|" ]'
check "a | in a name is escaped in a Markdown row" 'grep -qF "| Barbara \| Liskov | read |" <<<"$out"'

# The steps' totals: reading steps read; invalid and other-machine cells not counted.
check "step 1 (reading): 7 of 8 read" 'grep -qE "^\| 1 Finding your way around the shell \| 7/8 read \| 0 \| 0 \| 1 \| 7 \| 0 \| - \|  \|$" <<<"$out"'
check "step 3: passed, who is stuck, hints and the solution shown" 'grep -qE "^\| 3 Hands-on: every rank says who it is \| 2/7 passed \| 0 \| 1 \| 4 \| 5 \| 2 \(1 solution shown\) \| [0-9]+ s \| Alan Turing \|$" <<<"$out"'
check "the duplicate is one learner: Grace Hopper (grace) once in the stuck column" 'grep -qE "^\| 2 Backends: cuda, emulated nodes, sim \| [0-9]+/[0-9]+ passed \| 0 \| 1 \| [0-9]+ \| [0-9]+ \| 0 \| [0-9]+ s \| Grace Hopper \(grace\) \|$" <<<"$out"'
check "lab 1 step 1: one waits for answers" 'grep -qE "^\| 1 The link matrix \| [0-9]+/[0-9]+ passed \| 1 \| 0 \|" <<<"$out"'

# Per question: how many answered, right now, ever wrong, the common wrong answers.
check "per question: gpus answered by 4, right now 3, wrong 2 (4 twice, 16 once)" 'grep -qF "| 00-welcome backends | gpus | 4 | 3 | 2 | 4 (2), 16 (1) |" <<<"$out"'
check "per question: backend answered right by all 4" 'grep -qF "| 00-welcome backends | backend | 4 | 4 | 0 |  |" <<<"$out"'

# Every problem named with its file, none shown as data.
problems=$(sed -n "/^## Problems/,/^## Skipped/p" "$tmp/class.md")
check "the older export of a learner is named" 'grep -qF -- "- grace2.json: an older export of learner '"'"'grace'"'"' than grace.json, which is shown" <<<"$problems"'
check "two people under one name are named" 'grep -qF "2 learners are named '"'"'Grace Hopper'"'"' (ids grace, ghopper)" <<<"$problems"'
check "a learner off the roster is named" 'grep -qF -- "- ken.json: learner '"'"'ken'"'"' (Ken Thompson) is not on the class configuration" <<<"$problems"'
check "a learner on another machine is named" 'grep -qF -- "- linus.json: 4 steps ran on a machine other than the class'"'"'s sim dgx-h100: 00-welcome shell (sim pcie-4gpu)" <<<"$problems"'
check "a forged progress file is named, its claims not counted" 'grep -qF -- "- margaret.json: the learner'"'"'s progress file was changed outside mgpulab (its digest did not match): 8 steps it claims are not counted until run again" <<<"$problems"'
check "negative attempts are named" 'grep -qF -- "- dennis.json: 00-welcome step hello: attempts -1, hints 0: each must be a count (0 to 1000000)" <<<"$problems"'
check "an unknown state is named" 'grep -qF -- "- dennis.json: 00-welcome step progress: state '"'"'done'"'"' unknown" <<<"$problems"'
check "a lab outside the class is named" 'grep -qF -- "- dennis.json: lab '"'"'03-p2p'"'"' is not one of the class configuration'"'"'s labs" <<<"$problems"'
check "damaged and foreign files are skipped with why" 'grep -qF -- "- damaged.json: damaged: line" <<<"$out" && grep -qF -- "- foreign.json: foreign: not an mgpulab report" <<<"$out"'

# Text for the terminal: the same cells, aligned.
"$bin" report --class "$tmp/share" --format text >"$tmp/class.txt" 2>/dev/null
check "text: aligned grid rows" 'grep -qE "^Alan Turing +read +passed 3 +failed 2 +read +20[0-9-]+ [0-9:]+$" "$tmp/class.txt" && grep -qE "^Katherine Johnson +- +- +- +- +-$" "$tmp/class.txt"'

# CSV: one row per learner and step, nothing joined into one field.
"$bin" report --class "$tmp/share" --format csv >"$tmp/class.csv" 2>/dev/null
check "CSV: a row per learner and step, cells as the grid" 'python3 - "$tmp/class.csv" <<PY
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 10 * 8, len(rows)
cell = {(r["learner_id"], r["step"]): r for r in rows}
assert cell[("alan", "backends")]["state"] == "passed" and cell[("alan", "backends")]["attempts"] == "3"
assert 2 <= int(cell[("alan", "backends")]["time_on_task_s"]) < 120, cell[("alan", "backends")]
assert cell[("katherine", "shell")]["state"] == "not started"
assert cell[("barbara", "hello")]["solution_shown"] == "1" and cell[("barbara", "hello")]["name"] == "Barbara | Liskov"
assert cell[("linus", "hello")]["state"] == "other machine" and cell[("linus", "hello")]["ran_on"] == "sim pcie-4gpu"
assert cell[("ada", "shell")]["last_run"].endswith("Z")
PY'

# JSON: lists as lists.
"$bin" report --class "$tmp/share" --json >"$tmp/class.json.out" 2>/dev/null
check "JSON: learners, cells, stuck as a list, questions, problems" 'python3 - "$tmp/class.json.out" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "mgpulab-class" and len(d["learners"]) == 10
k = [l for l in d["learners"] if l["id"] == "katherine"][0]
assert k["started"] is False and k["on_roster"] is True and all(c["state"] == "not started" for c in k["cells"])
s = {(x["lab"], x["step"]): x for x in d["steps"]}
assert s[("00-welcome", "hello")]["stuck"] == ["Alan Turing"], s[("00-welcome", "hello")]["stuck"]
assert s[("00-welcome", "shell")]["done"] == 7 and s[("00-welcome", "shell")]["reading"] is True
q = [x for x in d["questions"] if x["question"] == "gpus"][0]
assert q["wrong_answers"] == [{"answer": "4", "learners": 2}, {"answer": "16", "learners": 1}], q
assert any("grace2.json" == p["file"] for p in d["problems"])
assert sorted(x["file"] for x in d["skipped"]) == ["damaged.json", "foreign.json"]
a = [l for l in d["learners"] if l["id"] == "alan"][0]
t = [c for c in a["cells"] if c["step"] == "backends"][0]["time_on_task"]
assert 2 <= t < 120, t
PY'

# HTML: one page, cells classed by state, text escaped.
"$bin" report --class "$tmp/share" --format html >"$tmp/class.html" 2>/dev/null
check "HTML: one self-contained page with the grid" 'grep -q "^<!DOCTYPE html>" "$tmp/class.html" && grep -q "<td class=\"not-started\">-</td>" "$tmp/class.html" && grep -q "<td class=\"passed\">passed 2</td>" "$tmp/class.html" && ! grep -qiE "(src|href)=" "$tmp/class.html"'

# --verify: every claimed pass runs again here from the export's evidence.
"$bin" report --class "$tmp/share" --verify >"$tmp/verify.md" 2>"$tmp/err"; rc=$?
check "--verify exits 0 (rc=$rc: $(grep -v "skipped\|re-running\|class configuration" "$tmp/err" | head -3))" '[ $rc -eq 0 ]'
cp "$tmp/verify.md" "$tmp/class.md"
grid 00-welcome >"$tmp/v0"
grid 01-topology >"$tmp/v1"
check "--verify: the real passes pass again, on the learner's own machine too" 'cell_rows "$tmp/v0" \
  "Ada Lovelace => read ; passed 1 [verified] ; passed 2 [verified] ; read ; time" \
  "Alan Turing => read ; passed 3 [verified] ; failed 2 ; read ; time" \
  "Linus Torvalds => other machine ; other machine [verified] ; other machine ; other machine ; time" \
  "Barbara | Liskov => read ; passed 1 [verified] ; passed 1 +sol [verified] ; - ; time"'
check "--verify: the forged passes fail on re-run (the step without an exercise or question passes for anyone)" 'cell_rows "$tmp/v0" \
  "Margaret Hamilton => edited ; edited [failed on re-run] ; edited [failed on re-run] ; edited ; time" && cell_rows "$tmp/v1" \
  "Margaret Hamilton => edited [failed on re-run] ; edited [failed on re-run] ; edited [failed on re-run] ; edited [verified] ; time" \
  "Ada Lovelace => passed 1 [verified] ; - ; - ; - ; time"'
check "--verify: says how many passed again and why the others did not" 'grep -qF "8 of 13 claimed passes passed again on this machine." "$tmp/verify.md" && grep -qF -- "- Margaret Hamilton, 00-welcome step 3 hello: failed on re-run: failed on sim dgx-h100: 1 of 1 checks failed: rank 0 reports world 1" "$tmp/verify.md"'
"$bin" report --class "$tmp/share" --verify --format csv >"$tmp/verify.csv" 2>/dev/null
check "--verify: CSV says verified per cell" 'python3 - "$tmp/verify.csv" <<PY
import csv, sys
cell = {(r["learner_id"], r["step"]): r for r in csv.DictReader(open(sys.argv[1]))}
assert cell[("ada", "hello")]["verified"] == "verified" and "passed again on sim dgx-h100" in cell[("ada", "hello")]["verify_note"]
assert cell[("margaret", "backends")]["verified"] == "failed on re-run"
assert cell[("alan", "hello")]["verified"] == ""
PY'
# Unverifiable: no exercise file in the export, a pass on a GPU.
mkdir "$tmp/share2"
cp "$tmp/share/ada.json" "$tmp/share2/"
python3 - "$tmp/share2/ada.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["id"]: x for x in d["labs"][0]["steps"]}
del s["hello"]["exercise"]
m = d["labs"][1]["steps"][0]
m["ran_on"] = m["passed_on"] = "cuda host gpu-7"
json.dump(d, open(sys.argv[1], "w"))
PY
"$bin" report --class "$tmp/share2" --verify >"$tmp/v2.md" 2>/dev/null
check "--verify: a claim without its exercise file is unverifiable, and says why" 'grep -qF -- "- Ada Lovelace, 00-welcome step 3 hello: unverifiable: the export carries no exercise file (\"export_solutions\": false)" "$tmp/v2.md"'
check "--verify: a pass on a GPU is unverifiable on the sim, and says why" 'grep -qF -- "- Ada Lovelace, 01-topology step 1 matrix: unverifiable: passed on a GPU (cuda host gpu-7); this re-run is not on one" "$tmp/v2.md"'
"$bin" report --verify >/dev/null 2>&1; rc=$?
check "--verify without --class is a usage error" '[ $rc -eq 2 ]'

# A roster entry that is not an id is refused, with where.
echo '{"roster": [{"id": "a"}, {"name": "no id"}]}' >"$tmp/bad.json"
MGPULAB_CLASS=$tmp/bad.json "$bin" report --class "$tmp/share" >/dev/null 2>"$tmp/err"; rc=$?
check "a roster entry without an id is refused (rc=$rc)" '[ $rc -eq 2 ] && grep -q "\"roster\" entry 2 must be an id" "$tmp/err"'
echo '{"roster": ["a", "a"]}' >"$tmp/bad.json"
MGPULAB_CLASS=$tmp/bad.json "$bin" report --class "$tmp/share" >/dev/null 2>"$tmp/err"; rc=$?
check "an id twice on the roster is refused (rc=$rc)" '[ $rc -eq 2 ] && grep -q "lists the id \"a\" twice" "$tmp/err"'

echo "class_report: $pass passed, $fail failed"
[ $fail -eq 0 ]
