#!/usr/bin/env bash
# diagnose.sh - lab 12 over many fault draws: each learner (USER) meets the
# fault their draw gives on a preset; the solver (diagnose_solver.py) derives
# the diagnosis from the tables the step showed - never from the seed - and
# the step must PASS with it, and FAIL with a pointed verdict for a wrong
# component, a wrong index and a healthy number quoted as evidence. The
# draws must cover at least six different components.
#
# MGPU_DIAGNOSE_DRAWS="PRESET:LEARNER ..." replaces the draws (the learner
# names were picked so that the draws cover every fault kind; the test
# itself only counts what the solver found). The sanitized build runs three
# draws, without the wrong runs. MGPU_DIAGNOSE_KINDS: the components the
# draws must cover (6); MGPU_DIAGNOSE_STEP2="PRESET ...": run step 2 there.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=$src/labs MGPULAB_CHECKS=$src/checks LANG=C
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
solver=$(dirname "$0")/diagnose_solver.py
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

# every fault kind once on the machine of two nodes but ib-speed, which
# diagnose_presets.sh meets on single-gpu (it has the other presets and
# step 2): 8 draws of 3 runs, about 3 minutes on an idle machine
draws=${MGPU_DIAGNOSE_DRAWS:-"2x-dgx-h100:learner0 2x-dgx-h100:learner1 2x-dgx-h100:learner4 2x-dgx-h100:learner5
  2x-dgx-h100:learner6 2x-dgx-h100:learner7 2x-dgx-h100:learner10 2x-dgx-h100:learner16"}
want=${MGPU_DIAGNOSE_KINDS:-6}
asan=${MGPU_TEST_ASAN:-0}
[ "$asan" = 1 ] && draws=$(echo $draws | cut -d' ' -f1-2) && want=2

# state JSON -> the step's state; verdicts JSON -> every failing check's message
state_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][0]["state"])' "$1" 2>/dev/null; }
failing() { python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["steps"][0].get("checks", []):
    if not c.get("ok") and not c.get("unanswered"): print(c.get("msg", ""))' "$1" 2>/dev/null; }

found=""
for d in $draws; do
  preset=${d%%:*} learner=${d#*:}
  run() { USER=$learner "$bin" run 12 --step 1 --backend sim --machine "$preset" --json "$@" 2>"$tmp/err.txt"; }
  "$bin" reset 12 >/dev/null 2>&1 # a learner's saved answers are theirs: each draw starts unanswered
  run >"$tmp/ev.json"; rc=$?
  st=$(state_of "$tmp/ev.json")
  [ $rc -eq 0 ] && [ "$st" = awaiting ] && ok || { bad "$d: unanswered run: rc=$rc state '$st' (wanted awaiting)"; tail -5 "$tmp/err.txt"; continue; }
  if ! ans=$(python3 "$solver" "$tmp/ev.json"); then bad "$d: the solver found no evidence"; continue; fi
  IFS=$'\t' read -r comp which tool value <<<"$ans"
  echo "# $d: $comp $which ($tool: $value)"
  found="$found $comp"
  run --answer "component=$comp" --answer "which=$which" --answer "tool=$tool" --answer "value=$value" >"$tmp/right.json"
  st=$(state_of "$tmp/right.json")
  [ "$st" = passed ] && ok || { bad "$d: the solver's diagnosis ($ans) did not pass: state '$st'"; failing "$tmp/right.json"; }
  [ "$asan" = 1 ] && continue
  # wrong diagnoses, one of each kind at once: each its pointed verdict
  args=()
  while IFS=$'\t' read -r kind c w t v; do
    case $kind in
      component) args+=(--answer "component=$c") ;;
      which) args+=(--answer "which=$w") ;;
      value) args+=(--answer "tool=$t" --answer "value=$v") ;;
    esac
  done < <(python3 "$solver" "$tmp/ev.json" --wrong)
  run "${args[@]}" >"$tmp/wrong.json"
  st=$(state_of "$tmp/wrong.json")
  msgs=$(failing "$tmp/wrong.json")
  [ "$st" = failed ] && ok || bad "$d: wrong answers: state '$st' (wanted failed)"
  grep -q "the component: .* is not it - " <<<"$msgs" && ok || bad "$d: no pointed verdict for the wrong component: $msgs"
  grep -qE "which: .* (is not the one|not confined to one)" <<<"$msgs" && ok || bad "$d: no pointed verdict for the wrong index: $msgs"
  grep -q "is what the healthy reference reads too" <<<"$msgs" && ok || bad "$d: no pointed verdict for a healthy number: $msgs"
  # never the answer: no failing verdict names the component or the index
  if grep -qiE "(^|[^a-z])$comp( |:|,|$)" <<<"$(grep -v '^the component: pcie is not it\|^the component: nvlink is not it' <<<"$msgs")"; then
    bad "$d: a failing verdict names the component '$comp': $msgs"
  else ok; fi
done

kinds=$(tr ' ' '\n' <<<"$found" | sort -u | grep -c .)
[ "$kinds" -ge "$want" ] && ok || bad "the draws covered $kinds components ($found), wanted at least $want"

# step 2 on every preset: right, and one wrong answer named
for preset in ${MGPU_DIAGNOSE_STEP2:-}; do
  [ "$asan" = 1 ] && [ "$preset" != dgx-h100 ] && continue
  "$bin" reset 12 >/dev/null 2>&1
  a=(--answer a1=socket --answer a2=desync --answer a3=link --answer a4=size --answer a5=straggler)
  "$bin" run 12 --step 2 --backend sim --machine "$preset" --json "${a[@]}" >"$tmp/s2.json" 2>"$tmp/err.txt"
  st=$(state_of "$tmp/s2.json")
  [ "$st" = passed ] && ok || { bad "$preset: step 2 with the right causes: state '$st'"; failing "$tmp/s2.json"; }
  "$bin" run 12 --step 2 --backend sim --machine "$preset" --json --answer a2=straggler --answer a5=desync >"$tmp/s2.json" 2>&1
  msgs=$(failing "$tmp/s2.json")
  [ "$(state_of "$tmp/s2.json")" = failed ] && grep -q "incident 2: straggler does not fit" <<<"$msgs" &&
    grep -q "incident 5: desync does not fit" <<<"$msgs" && ok || bad "$preset: step 2 wrong causes not named: $msgs"
done

echo "diagnose.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
