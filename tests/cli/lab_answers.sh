#!/usr/bin/env bash
# lab_answers.sh - questions do not give their answers away (issue 10,
# item 6): an unanswered or wrong answer shows where to look, never the
# value (it showed wanted: "NV18", 450 GB/s, "sim"); the log does not print
# the answers; the first hint of an exercise is a nudge, the last one stops
# short of the code (issue 26: it gave it) - the solution is shown only when
# asked for (hint --solution, tests/cli/lab_solution.sh) - and the step text
# is not the solution.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=$src/labs MGPULAB_CHECKS=$src/checks
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
fail=0
bad() { echo "FAIL: $*"; fail=1; }
sim=(--backend sim --machine dgx-h100)

"$bin" run 1 --step 1 "${sim[@]}" >"$tmp/l1" 2>&1
grep -qE 'wanted: .*(NV18|450)' "$tmp/l1" && bad "unanswered lab 1 step 1 shows the answer as wanted"
grep -qE '\[lab\].*(GPU0-GPU1: NV18|450)' "$tmp/l1" && bad "the log of lab 1 step 1 prints the answers"
grep -q 'not answered yet' "$tmp/l1" || bad "unanswered questions are not said to wait"
# headless says how to answer headless: the shell's key means nothing here (issue 26)
grep -q 'press a' "$tmp/l1" && bad "headless output says 'press a': $(grep 'press a' "$tmp/l1" | head -1)"
grep -qE '^  answer: mgpulab run 01-topology --step 1 --answer ID=VALUE \(waiting: link01, nvdomain, peak01\)$' "$tmp/l1" ||
    bad "headless output does not say how to answer: $(grep -E '^(AWAITING|  answer)' "$tmp/l1")"
grep -q 'where: topology pane (1): row GPU0, column GPU1' "$tmp/l1" || bad "an unanswered question does not say where to look"

"$bin" run 1 --step 1 "${sim[@]}" --answer link01=NV12 --answer nvdomain=8 --answer peak01=300 >"$tmp/l1w" 2>&1
verdict() { grep -E '^(PASS|FAIL|ERROR)|^  (saw|wanted|where|also failed):' "$1"; }
verdict "$tmp/l1w" | grep -qE 'NV18|450' && bad "a wrong answer is told the right one"
grep -q '"NV12" is not right - look again at' "$tmp/l1w" || bad "a wrong answer is not told where to look"
grep -q 'is too low' "$tmp/l1w" || bad "a wrong number is not told which way it is off"

"$bin" run 1 --step 1 "${sim[@]}" --answer link01=NV18 --answer nvdomain=8 --answer peak01=450 >"$tmp/l1r" 2>&1
grep -q '^PASS' "$tmp/l1r" || bad "the right answers do not pass"

"$bin" run 0 --step 2 "${sim[@]}" >"$tmp/l0" 2>&1
grep -qE 'wanted: "?sim' "$tmp/l0" && bad "unanswered lab 0 step 2 shows the backend as wanted"

# lab 4 step 7 takes a transport in the learner's spelling (issue 26: only
# "P2P/CUMEM" passed, not "p2p" nor the NVLink it runs on), and asks what its
# text asks: why that transport (the link) and a figure derived from two
for t in P2P/CUMEM p2p NVLink; do
  "$bin" run 4 --step trace "${sim[@]}" --answer transport=$t --answer link=nvlink --answer per_channel=28.1 >"$tmp/l4" 2>&1
  grep -q '^PASS' "$tmp/l4" || bad "lab 4 step 7 refuses transport=$t: $(grep -E '^(PASS|FAIL|AWAITING)' "$tmp/l4")"
done
"$bin" run 4 --step trace "${sim[@]}" --answer transport=SHM --answer link=PCIe --answer per_channel=16 >"$tmp/l4w" 2>&1
grep -q '^FAIL' "$tmp/l4w" && grep -q '"SHM" is not right' "$tmp/l4w" && grep -q '"pcie" is not right' "$tmp/l4w" ||
    bad "lab 4 step 7 takes wrong answers: $(grep -E '^(PASS|FAIL|AWAITING)' "$tmp/l4w")"
verdict "$tmp/l4w" | grep -qE 'P2P/CUMEM|28\.1' && bad "lab 4 step 7 tells a wrong answer the right one"

h1=$("$bin" hint 3 --step events 2>&1)
echo "$h1" | grep -q 'consume:wait(e0)' && bad "the first hint of stale.lua is the solution: $h1"
grep -q 'consume:wait(e0)' "$src/labs/03-p2p/steps/03-events.md" && bad "the events step text prints the solution"
h2=$("$bin" hint 3 --step events 2>&1); h3=$("$bin" hint 3 --step events 2>&1)
echo "$h3" | grep -q 'consume:wait(e0)' && bad "the last hint of stale.lua gives the code: $h3"
echo "$h3" | grep -q -- '--solution' || bad "the last hint of stale.lua does not say where the solution is: $h3"
[ $fail -eq 0 ] && echo "ok - answers are not given away; hints go from a nudge to the idea, short of the code"
exit $fail
