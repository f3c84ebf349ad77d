#!/usr/bin/env bash
# exercises.sh - every lab in labs/ on the sim (dgx-h100): the whole lab runs
# without a lab error (exit 0); every step with an exercise FAILS its check on
# the unsolved exercise and PASSES with the reference solution copied over the
# workspace copy; every step with questions waits unanswered (state
# "awaiting", or "failed" with an unsolved exercise beside them) and passes
# with the answers in solutions/answers-dgx-h100.txt (lines ID=VALUE); a lab
# with solutions/fault-MACHINE.txt runs with that --fault (lab 12's hidden one).
# MGPULAB_LABS may point at another labs directory (the framework's own test
# labs use it). MGPU_LAB_ARGS replaces the backend arguments (the GPU round:
# "--backend cuda"); MGPU_LABS_ONLY=ID[,ID] tests only those labs;
# MGPU_LABS_STEPS_ONLY=1 skips the whole-lab runs (the GPU round runs it apart).
#
# Runs: the whole lab once, unsolved (--json): it must exit 0, and it gives
# every step's unsolved state (a step fails unsolved after the steps before
# it, as a learner meets it). Each step is then run alone, solved. With
# MGPU_LABS_STEPS_ONLY the unsolved states come from runs of each step alone.
# With MGPU_TEST_ASAN=1 (the sanitized build's ctest) the lab runs whole
# once, with every solution and answer: it must exit 0 and every exercise
# step must pass. The unsolved runs are the release pass's: measured with a
# --coverage build (bench/asan_lab_coverage.sh), they reach no line of engine/,
# cli/ or shell/ that the rest of the sanitized pass does not, and they were
# a third of its time.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=${MGPULAB_LABS:-$src/labs}
# MGPU_LAB_ARGS overrides the machine for every lab (the GPU round: --backend cuda ...).
read -r -a lab_args <<<"${MGPU_LAB_ARGS:-}"
only=",${MGPU_LABS_ONLY:-},"
# The sim preset a lab is tested on (lab_machine.bash).
. "$(dirname "$0")/lab_machine.bash"
machine_of() { lab_machine "$@"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
# a step this machine cannot show is skipped on a real machine (the GPU
# round, MGPU_LAB_ARGS); on the preset its answers were written for it
# never is, so there it is a failure
skip() {
  if [ -n "${MGPU_LAB_ARGS:-}" ]; then echo "SKIP: $*"; skipped=$((skipped+1)); else bad "$* (on the lab's own preset)"; fi
}
skipped=0
# unavailable JSONFILE [N] -> the message, when step N (default: the only
# one) failed only on checks marked `unavailable` (this machine cannot show
# it: one node, one GPU); exit 1 otherwise
unavailable() {
  python3 - "$1" "${2:-1}" <<'PY' 2>/dev/null
import json, sys
s = json.load(open(sys.argv[1]))["steps"][int(sys.argv[2]) - 1]
bad = [c for c in s.get("checks", []) if not c.get("ok")]
if s.get("state") != "failed" or not bad or not all(c.get("unavailable") for c in bad):
    sys.exit(1)
print(bad[0].get("msg", ""))
PY
}

"$bin" list --json >"$tmp/list.json" 2>"$tmp/list.err" || { bad "mgpulab list failed"; cat "$tmp/list.err"; exit 1; }

# One line per lab: "lab|ID|load error or empty"; one per step to test:
# "step|ID|STEP|exercise path|solution path|question ids" (fields split at
# \x1f, which no path holds; a tab would merge empty fields).
python3 - "$tmp/list.json" >"$tmp/plan" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for lab in doc["labs"]:
    print("lab\x1f%s\x1f%s" % (lab["id"], (lab.get("load_error") or "").split("\n")[0]))
    for i, s in enumerate(lab["steps"], 1):
        qs = ",".join(q["id"] for q in s.get("questions", []))
        if s.get("exercise") or qs:
            print("step\x1f%s\x1f%d\x1f%s\x1f%s\x1f%s" % (lab["id"], i, s.get("exercise") or "", s.get("solution") or "", qs))
PY
[ -s "$tmp/plan" ] || { bad "no labs found in $MGPULAB_LABS"; exit 1; }

state_of() { # state_of JSONFILE -> the step's state
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][0]["state"])' "$1" 2>/dev/null
}
states_of() { # states_of JSONFILE -> every step's state, in order, one line
  python3 -c 'import json,sys; print(" ".join(s["state"] for s in json.load(open(sys.argv[1]))["steps"]))' "$1" 2>/dev/null
}
nth() { # nth N WORDS... -> the Nth word
  local n=$1; shift
  [ "$n" -ge 1 ] && [ "$n" -le $# ] && echo "${!n}"
}

# answers_for ID STEP QIDS -> the --answer arguments in the array `answers`;
# 1 (after saying why) when the solutions lack one
answers_for() {
  local id=$1 step=$2 qids=$3 af q line
  answers=()
  [ -n "$qids" ] || return 0
  af=$MGPULAB_LABS/$id/solutions/answers-$(machine_of "$id").txt
  [ -f "$af" ] || { bad "$id step $step asks questions ($qids) but $af does not exist"; return 1; }
  for q in ${qids//,/ }; do
    line=$(grep -E "^$q=" "$af" | head -1)
    [ -n "$line" ] || { bad "$id step $step: $af has no answer for '$q'"; return 1; }
    # "ID=" with nothing after it: a measured answer this machine cannot
    # give (the step is unavailable here); the run must then say so
    [ "$line" = "$q=" ] && continue
    answers+=(--answer "$line")
  done
}

# solved_whole ID SIM... -> every step's state with every exercise solved and
# every question answered, one run of the whole lab (MGPU_TEST_ASAN)
solved_whole() {
  local id=$1; shift
  local all=() kind lid step ex sol qids
  "$bin" reset "$id" >/dev/null 2>&1
  while IFS=$'\x1f' read -r kind lid step ex sol qids; do
    [ "$kind" = step ] && [ "$lid" = "$id" ] || continue
    [ -n "$ex" ] && [ -n "$sol" ] && cp "$sol" "$ex"
    answers_for "$id" "$step" "$qids" 2>/dev/null >/dev/null && all+=("${answers[@]}")
  done <"$tmp/plan"
  "$bin" run "$id" "$@" --json "${all[@]}" >"$tmp/solved_whole.json" 2>"$tmp/solved_whole.err"
  echo $? >"$tmp/solved_whole.rc"
  states_of "$tmp/solved_whole.json"
  "$bin" reset "$id" >/dev/null 2>&1
}

# check_unsolved: the step (globals id, step, sim, want_unsolved) must fail
# its check on the unsolved exercise and wait for unanswered questions -
# seen in the run of the whole lab, else in a run of the step alone
check_unsolved() {
  if [ -n "$unsolved_states" ]; then
    st=$(nth "$step" $unsolved_states)
    [[ $st =~ ^($want_unsolved)$ ]] && ok || { bad "$id step $step unsolved: state '$st', wanted '$want_unsolved' (the check must fail on the unsolved exercise, and wait for unanswered questions; seen in the run of the whole lab)"; head -c 3000 "$tmp/whole.json"; }
  else
    "$bin" reset "$id" >/dev/null 2>&1 || { bad "mgpulab reset $id failed"; return; }
    "$bin" run "$id" --step "$step" "${sim[@]}" --json >"$tmp/unsolved.json" 2>"$tmp/unsolved.err"
    st=$(state_of "$tmp/unsolved.json")
    [[ $st =~ ^($want_unsolved)$ ]] && ok || { bad "$id step $step unsolved: state '$st', wanted '$want_unsolved' (the check must fail on the unsolved exercise, and wait for unanswered questions)"; head -c 3000 "$tmp/unsolved.json"; cat "$tmp/unsolved.err"; }
  fi
}

seen=,
unsolved_states= solved_states=
while IFS=$'\x1f' read -r kind id a b c d; do
  [ "$only" = ",," ] || [[ $only == *",$id,"* ]] || continue
  if [ ${#lab_args[@]} -gt 0 ]; then sim=("${lab_args[@]}"); else sim=(--backend sim --machine "$(machine_of "$id")"); fi
  # a lab that hides a fault (12) is tested with the one its answers are for,
  # pinned as a class configuration's "fault" pins it
  pin=$MGPULAB_LABS/$id/solutions/fault-$(machine_of "$id").txt
  [ ${#lab_args[@]} -eq 0 ] && [ -f "$pin" ] && sim+=(--fault "$(tr -d '\n' <"$pin")")
  if [ "$kind" = lab ]; then
    seen=$seen$id,
    unsolved_states= solved_states=
    if [ -n "$a" ]; then bad "lab $id does not load: $a"; continue; fi
    [ -n "${MGPU_LABS_STEPS_ONLY:-}" ] && continue
    if [ "${MGPU_TEST_ASAN:-0}" = 1 ]; then
      solved_states=$(solved_whole "$id" "${sim[@]}")
      rc=$(cat "$tmp/solved_whole.rc")
      [ "$rc" = 0 ] && ok || { bad "mgpulab run $id (every exercise solved) exited $rc (a lab error or a crash)"; head -c 3000 "$tmp/solved_whole.json"; tail -30 "$tmp/solved_whole.err"; }
      continue
    fi
    # the whole lab on a fresh workspace, nothing answered
    "$bin" run "$id" "${sim[@]}" --json >"$tmp/whole.json" 2>"$tmp/whole.err"; rc=$?
    if [ $rc -eq 0 ]; then ok; unsolved_states=$(states_of "$tmp/whole.json")
    else bad "mgpulab run $id exited $rc (a lab error or a crash)"; head -c 3000 "$tmp/whole.json"; tail -30 "$tmp/whole.err"; fi
    continue
  fi
  step=$a ex=$b sol=$c qids=$d
  answers_for "$id" "$step" "$qids" || continue
  if [ -n "$ex" ] && [ -z "$sol" ]; then bad "$id step $step: exercise $(basename "$ex") has no solution in solutions/"; continue; fi
  # unsolved: a fresh workspace, no answers -> the check must say no; a
  # step with questions and no exercise waits for the answers (AWAITING,
  # never a failure that turns the lab red on a first run); with an unsolved
  # exercise beside them it fails. A step that shares an earlier step's
  # exercise and only asks about it (lab 4's buckets) may fail with it.
  want_unsolved=failed
  [ -n "$qids" ] && want_unsolved='awaiting|failed'
  [ -n "$qids" ] && [ -z "$ex" ] && want_unsolved=awaiting
  # the sanitized pass leaves the unsolved runs to the release pass (see the top)
  [ "${MGPU_TEST_ASAN:-0}" = 1 ] || check_unsolved
  # solved: the reference solution in the workspace, the right answers
  if [ -n "$solved_states" ]; then
    st=$(nth "$step" $solved_states)
    if [ "$st" != passed ] && why=$(unavailable "$tmp/solved_whole.json" "$step"); then skip "$id step $step: this machine cannot show it: $why"; continue; fi
    [ "$st" = passed ] && ok || { bad "$id step $step solved: state '$st', wanted 'passed' (seen in the run of the whole lab, every step solved)"; head -c 3000 "$tmp/solved_whole.json"; cat "$tmp/solved_whole.err"; }
    continue
  fi
  "$bin" reset "$id" >/dev/null 2>&1 || { bad "mgpulab reset $id failed"; continue; }
  [ -n "$ex" ] && cp "$sol" "$ex"
  "$bin" run "$id" --step "$step" "${sim[@]}" --json "${answers[@]}" >"$tmp/solved.json" 2>"$tmp/solved.err"
  st=$(state_of "$tmp/solved.json")
  if [ "$st" != passed ] && why=$(unavailable "$tmp/solved.json"); then
    skip "$id step $step: this machine cannot show it: $why"
    "$bin" reset "$id" >/dev/null 2>&1
    continue
  fi
  [ "$st" = passed ] && ok || { bad "$id step $step solved: state '$st', wanted 'passed'"; head -c 3000 "$tmp/solved.json"; cat "$tmp/solved.err"; }
  "$bin" reset "$id" >/dev/null 2>&1
done <"$tmp/plan"

# every lab asked for was there (ctest runs one test per labs/ directory)
for id in ${MGPU_LABS_ONLY:+${MGPU_LABS_ONLY//,/ }}; do [[ $seen == *",$id,"* ]] || bad "MGPU_LABS_ONLY: no lab '$id' in $MGPULAB_LABS"; done

echo "exercises.sh: $pass passed, $fail failed, $skipped not shown by this machine"
[ $fail -eq 0 ]
