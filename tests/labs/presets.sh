#!/usr/bin/env bash
# presets.sh - training labs (MGPU_PRESET_LABS; ctest runs one
# labs.presets.ID per lab) run on every sim preset without a lab error: each
# step either passes, waits for the learner, or fails with a verdict that
# says what this machine cannot show (a one-node machine in lab 7) - never
# an ERROR. exercises.sh holds the checks to
# "fails unsolved, passes solved" on one machine; this holds the labs to
# "runs everywhere". It runs all five presets (MGPU_PRESETS overrides); the
# sanitized build does not register it (tests/CMakeLists.txt says why).
# With MGPU_PRESETS_EXERCISED=1 (ctest sets it: labs.exercises.ID runs in
# the same suite) it leaves out the preset exercises.sh runs the whole lab
# on (lab_machine.bash: dgx-h100, 2x-dgx-h100 for labs 6-7):
# that run of the same lab on the same preset must exit 0, and the exit
# status already says no step ended in ERROR (cli/cmd_run.c), so running it
# here again bought nothing (a fifth of this test's time; lab 4 ~40 s).
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=${MGPULAB_LABS:-$src/labs}
. "$(dirname "$0")/lab_machine.bash"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
fail=0; pass=0
for lab in ${MGPU_PRESET_LABS:-4 5 6 7 9 10 11}; do
  presets=${MGPU_PRESETS:-dgx-h100 dgx-h200 pcie-4gpu 2x-dgx-h100 single-gpu}
  exercised=
  if [ "${MGPU_PRESETS_EXERCISED:-0}" = 1 ] && [ -z "${MGPU_PRESETS:-}" ]; then
    dir=$(cd "$MGPULAB_LABS" && ls -d "$(printf %02d "$((10#$lab))")"-* 2>/dev/null | head -1)
    [ -n "$dir" ] || { echo "FAIL: lab $lab: no labs/$(printf %02d "$((10#$lab))")-* directory"; fail=$((fail+1)); continue; }
    exercised=$(lab_machine "$dir")
  fi
  for m in $presets; do
    if [ "$m" = "$exercised" ]; then
      echo "lab $lab on $m: left to labs.exercises.$dir (its whole-lab run on $m)"
      continue
    fi
    "$bin" run "$lab" --backend sim --machine "$m" >"$tmp/out" 2>&1; rc=$?
    if [ $rc -ne 0 ] || grep -q '^ERROR' "$tmp/out"; then
      echo "FAIL: lab $lab on $m: exit $rc"; grep -A6 '^ERROR' "$tmp/out" | head -20; tail -5 "$tmp/out"
      fail=$((fail+1))
    else
      pass=$((pass+1))
    fi
  done
done
echo "presets.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
