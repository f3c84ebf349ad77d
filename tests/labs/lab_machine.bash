# lab_machine.bash - the sim preset a lab's exercises are tested on (sourced
# by exercises.sh and presets.sh, which must agree on it: presets.sh leaves
# that preset to exercises.sh's run of the whole lab).
# lab_machine ID -> dgx-h100, unless the lab's solutions hold only answers
# for another machine (answers-2x-dgx-h100.txt); MGPU_LAB_ANSWERS=NAME picks
# solutions/answers-NAME.txt where a lab has one (the GPU round: answers for
# one H200 with ranks as emulated nodes). Needs MGPULAB_LABS.
lab_machine() {
  local d=$MGPULAB_LABS/$1/solutions f
  [ -n "${MGPU_LAB_ANSWERS:-}" ] && [ -f "$d/answers-$MGPU_LAB_ANSWERS.txt" ] && { echo "$MGPU_LAB_ANSWERS"; return; }
  [ -f "$d/answers-dgx-h100.txt" ] && { echo dgx-h100; return; }
  for f in "$d"/answers-*.txt; do [ -f "$f" ] && { basename "$f" .txt | sed 's/^answers-//'; return; }; done
  echo dgx-h100
}
