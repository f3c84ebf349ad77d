#!/usr/bin/env bash
# wrong.sh - the wrong-solution corpus: every file under
# tests/labs/wrong/LAB/EXERCISE/*.lua is a plausible wrong solution of
# labs/LAB/exercises/EXERCISE.lua, as a learner who half-understood would
# write it. Each must FAIL its step with a verdict that names the fault: a
# failing check's message (or saw/wanted/where) must hold the phrase the
# file's header gives. Header lines (Lua comments at the top):
#   -- wrong: what the learner got wrong (one line, for the reader)
#   -- verdict: a phrase the failing verdict must contain (case-insensitive;
#               several verdict lines: each must appear)
#   -- step: N        the step to run (default: the first step whose exercise
#                     it is; later steps that reuse it measure, not judge it)
#   -- presets: a,b   only on these sim presets (default: every one); for a
#                     fault a machine cannot show (a P2P race on one GPU). On
#                     a real machine (MGPU_LAB_ARGS) such a file that does not
#                     fail as it must is skipped and said: the machine may be
#                     one of those that cannot show it
# No question is answered: a wrong exercise must fail on its own, not wait.
#
# Runs on the lab's own preset (lab_machine.bash); MGPU_WRONG_PRESETS=all
# runs every file on the five sim presets too (the release pass), where a
# step that machine cannot show at all (every failing check `unavailable`)
# is skipped. MGPU_LAB_ARGS replaces the machine (the GPU round: "--backend
# cuda"); MGPU_LABS_ONLY=ID[,ID] picks labs; MGPU_WRONG_ONLY=NAME[,NAME]
# picks files by name; MGPU_WRONG_EXERCISES=EXERCISE[,...] picks exercises
# (the CTest splits a lab's corpus so that each part has its own timeout).
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=${MGPULAB_LABS:-$src/labs}
corpus=${MGPU_WRONG_DIR:-$src/tests/labs/wrong}
read -r -a lab_args <<<"${MGPU_LAB_ARGS:-}"
only=",${MGPU_LABS_ONLY:-},"
wonly=",${MGPU_WRONG_ONLY:-},"
exonly=",${MGPU_WRONG_EXERCISES:-},"
. "$(dirname "$0")/lab_machine.bash"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
fail=0; pass=0; skipped=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
all_presets="dgx-h100 dgx-h200 pcie-4gpu 2x-dgx-h100 single-gpu"

"$bin" list --json >"$tmp/list.json" 2>"$tmp/list.err" || { bad "mgpulab list failed"; cat "$tmp/list.err"; exit 1; }

# header FILE KEY -> the values of "-- KEY: ..." lines at the top, one a line
header() { sed -n '/^--/!q; s/^-- *'"$2"': *//p' "$1"; }

# first_step LAB EXERCISE -> the first step whose exercise is EXERCISE.lua
first_step() {
  python3 - "$tmp/list.json" "$1" "$2" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
for lab in doc["labs"]:
    if lab["id"] != sys.argv[2]:
        continue
    for i, s in enumerate(lab["steps"], 1):
        if s.get("exercise") and os.path.basename(s["exercise"]) == sys.argv[3] + ".lua":
            print(i); sys.exit(0)
PY
}

# workspace_file LAB EXERCISE -> the learner's copy of it
workspace_file() {
  python3 - "$tmp/list.json" "$1" "$2" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
for lab in doc["labs"]:
    if lab["id"] == sys.argv[2]:
        for s in lab["steps"]:
            if s.get("exercise") and os.path.basename(s["exercise"]) == sys.argv[3] + ".lua":
                print(s["exercise"]); sys.exit(0)
PY
}

# judge JSONFILE PHRASES... -> "ok", "unavailable: MSG", or what was seen
judge() {
  python3 - "$@" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1]))["steps"][0]
except Exception as e:
    print("no JSON from mgpulab run (%s)" % e); sys.exit(0)
failing = [c for c in s.get("checks", []) if not c.get("ok") and not c.get("unanswered")]
if s.get("state") == "failed" and failing and all(c.get("unavailable") for c in failing):
    print("unavailable: " + failing[0].get("msg", "")); sys.exit(0)
if s.get("state") != "failed":
    print("state '%s' (wanted failed): %s" % (s.get("state"), s.get("message", "")[:600])); sys.exit(0)
text = " | ".join(" ".join(str(c.get(k, "")) for k in ("msg", "saw", "wanted", "where")) for c in failing).lower()
missing = [p for p in sys.argv[2:] if p.lower() not in text]
if missing:
    print("failed, but no failing check says %s; they said: %s" % (" / ".join(repr(m) for m in missing),
          " | ".join(c.get("msg", "") for c in failing)[:900]))
else:
    print("ok")
PY
}

runs=0
for dir in "$corpus"/*/*/; do
  [ -d "$dir" ] || continue
  id=$(basename "$(dirname "$dir")") ex=$(basename "$dir")
  [ "$only" = ",," ] || [[ $only == *",$id,"* ]] || continue
  [ "$exonly" = ",," ] || [[ $exonly == *",$ex,"* ]] || continue
  target=$(workspace_file "$id" "$ex")
  [ -n "$target" ] || { bad "$id/$ex: lab $id has no exercise $ex.lua"; continue; }
  own=$(lab_machine "$id")
  for f in "$dir"*.lua; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .lua)
    [ "$wonly" = ",," ] || [[ $wonly == *",$name,"* ]] || continue
    mapfile -t phrases < <(header "$f" verdict)
    [ ${#phrases[@]} -gt 0 ] || { bad "$id/$ex/$name.lua has no '-- verdict:' line"; continue; }
    [ -n "$(header "$f" wrong)" ] || { bad "$id/$ex/$name.lua has no '-- wrong:' line"; continue; }
    steps=$(header "$f" step); [ -n "$steps" ] || steps=$(first_step "$id" "$ex")
    allowed=$(header "$f" presets)
    if [ ${#lab_args[@]} -gt 0 ]; then machines=(args)
    elif [ "${MGPU_WRONG_PRESETS:-}" = all ]; then read -r -a machines <<<"$all_presets"
    else machines=("$own"); fi
    for m in "${machines[@]}"; do
      if [ "$m" = args ]; then sim=("${lab_args[@]}"); where="${lab_args[*]}"
      else
        [ -z "$allowed" ] || [[ ",$allowed," == *",$m,"* ]] || continue
        sim=(--backend sim --machine "$m"); where=$m
      fi
      for step in $steps; do
        runs=$((runs+1))
        "$bin" reset "$id" >/dev/null 2>&1
        cp "$f" "$target"
        "$bin" run "$id" --step "$step" "${sim[@]}" --json >"$tmp/run.json" 2>"$tmp/run.err"
        verdict=$(judge "$tmp/run.json" "${phrases[@]}")
        if [ "$m" = args ] && [ -n "$allowed" ] && [ "$verdict" != ok ]; then
          echo "SKIP: $id step $step, $name.lua on $where: it shows its fault on $allowed only ($verdict)" | cut -c1-400
          skipped=$((skipped+1)); continue
        fi
        case $verdict in
          ok) ok ;;
          unavailable:*)
            # the lab's own preset must show every fault
            if [ "$m" = "$own" ]; then bad "$id step $step, $name.lua on $where: ${verdict}"
            else echo "SKIP: $id step $step, $name.lua on $where: this machine cannot show the step (${verdict#unavailable: })"; skipped=$((skipped+1)); fi ;;
          *) bad "$id step $step, $name.lua on $where: $verdict"; tail -5 "$tmp/run.err" ;;
        esac
      done
    done
  done
  "$bin" reset "$id" >/dev/null 2>&1
done
[ $runs -gt 0 ] || [ "$only" != ",," ] || bad "no wrong solutions found under $corpus"

echo "wrong.sh: $pass failed as they must, $fail did not, $skipped not shown by this machine"
[ $fail -eq 0 ]
