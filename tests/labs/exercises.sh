#!/usr/bin/env bash
# exercises.sh - every lab in labs/ on the sim (dgx-h100): the whole lab runs
# without a lab error (exit 0); every step with an exercise FAILS its check on
# the unsolved exercise and PASSES with the reference solution copied over the
# workspace copy; every step with questions fails unanswered and passes with
# the answers in solutions/answers-dgx-h100.txt (lines ID=VALUE).
# MGPULAB_LABS may point at another labs directory (the framework's own test
# labs use it). MGPU_LAB_ARGS replaces the backend arguments (the GPU round:
# "--backend cuda"); MGPU_LABS_ONLY=ID[,ID] tests only those labs;
# MGPU_LABS_STEPS_ONLY=1 skips the whole-lab runs (the GPU round runs it apart).
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=${MGPULAB_LABS:-$src/labs}
# MGPU_LAB_ARGS overrides the machine for every lab (the GPU round: --backend cuda ...).
read -r -a lab_args <<<"${MGPU_LAB_ARGS:-}"
only=",${MGPU_LABS_ONLY:-},"
# The sim preset a lab is tested on: dgx-h100, unless its solutions hold
# only answers for another machine (answers-2x-dgx-h100.txt).
machine_of() {
  local d=$MGPULAB_LABS/$1/solutions
  [ -f "$d/answers-dgx-h100.txt" ] && { echo dgx-h100; return; }
  for f in "$d"/answers-*.txt; do [ -f "$f" ] && { basename "$f" .txt | sed 's/^answers-//'; return; }; done
  echo dgx-h100
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

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

while IFS=$'\x1f' read -r kind id a b c d; do
  [ "$only" = ",," ] || [[ $only == *",$id,"* ]] || continue
  if [ "$kind" = lab ]; then
    if [ -n "$a" ]; then bad "lab $id does not load: $a"; continue; fi
    [ -n "${MGPU_LABS_STEPS_ONLY:-}" ] && continue
    if [ ${#lab_args[@]} -gt 0 ]; then sim=("${lab_args[@]}"); else sim=(--backend sim --machine "$(machine_of "$id")"); fi
    "$bin" run "$id" "${sim[@]}" >"$tmp/whole.out" 2>&1; rc=$?
    [ $rc -eq 0 ] && ok || { bad "mgpulab run $id exited $rc (a lab error or a crash)"; tail -30 "$tmp/whole.out"; }
    continue
  fi
  step=$a ex=$b sol=$c qids=$d
  labdir=$MGPULAB_LABS/$id
  machine=$(machine_of "$id")
  if [ ${#lab_args[@]} -gt 0 ]; then sim=("${lab_args[@]}"); else sim=(--backend sim --machine "$machine"); fi
  answers=()
  if [ -n "$qids" ]; then
    af=$labdir/solutions/answers-$machine.txt
    [ -f "$af" ] || { bad "$id step $step asks questions ($qids) but $af does not exist"; continue; }
    for q in ${qids//,/ }; do
      line=$(grep -E "^$q=" "$af" | head -1)
      [ -n "$line" ] || { bad "$id step $step: $af has no answer for '$q'"; continue 2; }
      answers+=(--answer "$line")
    done
  fi
  if [ -n "$ex" ] && [ -z "$sol" ]; then bad "$id step $step: exercise $(basename "$ex") has no solution in solutions/"; continue; fi
  # unsolved: a fresh workspace, no answers -> the check must say no
  "$bin" reset "$id" >/dev/null 2>&1 || { bad "mgpulab reset $id failed"; continue; }
  "$bin" run "$id" --step "$step" "${sim[@]}" --json >"$tmp/unsolved.json" 2>"$tmp/unsolved.err"
  st=$(state_of "$tmp/unsolved.json")
  [ "$st" = failed ] && ok || { bad "$id step $step unsolved: state '$st', wanted 'failed' (the check must fail on the unsolved exercise)"; head -c 3000 "$tmp/unsolved.json"; cat "$tmp/unsolved.err"; }
  # solved: the reference solution in the workspace, the right answers
  [ -n "$ex" ] && cp "$sol" "$ex"
  "$bin" run "$id" --step "$step" "${sim[@]}" --json "${answers[@]}" >"$tmp/solved.json" 2>"$tmp/solved.err"
  st=$(state_of "$tmp/solved.json")
  [ "$st" = passed ] && ok || { bad "$id step $step solved: state '$st', wanted 'passed'"; head -c 3000 "$tmp/solved.json"; cat "$tmp/solved.err"; }
  "$bin" reset "$id" >/dev/null 2>&1
done <"$tmp/plan"

echo "exercises.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
