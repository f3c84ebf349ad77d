#!/usr/bin/env bash
# deadlock.sh - lab 8 beyond "fails unsolved, passes solved" (exercises.sh,
# which runs it on dgx-h100 and, in the exercise steps, the learner's script
# on 4 and on 7 ranks): solved, the whole lab passes on the one-GPU preset;
# the hang step passes on the other presets and with 7 ranks (where the
# right answer moves); every hang it provokes on purpose is ended and no
# rank worker outlives it. Kept short: each hang costs its timeout. The
# sanitized build does not register it (tests/CMakeLists.txt says why).
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=$src/labs MGPULAB_CHECKS=$src/checks
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
lab=$MGPULAB_LABS/08-deadlock
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

answers=()
while IFS= read -r line; do [ -n "$line" ] && answers+=(--answer "$line"); done <"$lab/solutions/answers-dgx-h100.txt"

# Workers inherit XDG_STATE_HOME: a process still carrying ours is one of ours.
leftover() {
  local p
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = $$ ] && continue
    { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qx "XDG_STATE_HOME=$XDG_STATE_HOME" && echo "${p#/proc/}"
  done
}

states() { # the step states of a `run --json` document, one line
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%s=%s" % (s["id"], s["state"]) for s in d["steps"]))' "$1" 2>/dev/null
}

no_leftover() { # WHAT
  local left; left=$(leftover)
  [ -z "$left" ] && ok || { bad "$1: processes left behind: $left"; ps -o pid,ppid,cmd -p "${left//$'\n'/,}"; }
}

# the whole lab, solved, on one simulated GPU (4 ranks share it)
"$bin" reset 8 >/dev/null 2>&1
cp "$lab"/solutions/*.lua "$XDG_STATE_HOME/mgpulab/work/08-deadlock/" || bad "no workspace for lab 8"
"$bin" run 8 --backend sim --machine single-gpu --json "${answers[@]}" >"$tmp/run.json" 2>"$tmp/run.err"; rc=$?
st=$(states "$tmp/run.json")
want="mismatch=passed async=passed logloss=passed empty=passed fingerprint=passed"
[ $rc -eq 0 ] && [ "$st" = "$want" ] && ok ||
  { bad "single-gpu: exit $rc, steps '$st', wanted '$want'"; head -c 4000 "$tmp/run.json"; cat "$tmp/run.err"; }
no_leftover single-gpu

# the hang step on the other presets
for m in dgx-h200 pcie-4gpu 2x-dgx-h100; do
  "$bin" run 8 --step mismatch --backend sim --machine "$m" --answer odd_rank=3 --answer hung_seq=2 --json >"$tmp/m.json" 2>&1
  [ "$(states "$tmp/m.json")" = "mismatch=passed" ] && ok || { bad "$m: $(states "$tmp/m.json")"; head -c 3000 "$tmp/m.json"; }
  no_leftover "$m"
done

# with 7 ranks the right answer moves: the last rank is 6
"$bin" run 8 --step mismatch --backend sim --machine dgx-h100 --ranks 7 --answer odd_rank=6 --answer hung_seq=2 --json >"$tmp/r7.json" 2>&1
[ "$(states "$tmp/r7.json")" = "mismatch=passed" ] && ok || { bad "7 ranks, odd_rank=6: $(states "$tmp/r7.json")"; head -c 3000 "$tmp/r7.json"; }
no_leftover "7 ranks"

echo "deadlock.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
