#!/usr/bin/env bash
# class_draw_seed.sh - a class configuration's "draw_seed" varies lab 12's
# hidden fault from one class to the next: the same learner on the same
# preset meets the same fault under one seed (run twice), and across four
# seeds meets more than one fault. The fault is read from the step's own
# evidence by lab 12's solver (tests/labs/diagnose_solver.py), never from the
# seed. An unknown member still names draw_seed among the known ones.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
export MGPULAB_LABS=$src/labs MGPULAB_CHECKS=$src/checks USER=alice

diagnosis() { # SEED RUN -> the solver's component and which
  local d=$tmp/$1-$2
  mkdir -p "$d"
  printf '{"name": "workshop", "draw_seed": "%s"}\n' "$1" >"$d/class.json"
  MGPULAB_CLASS=$d/class.json XDG_STATE_HOME=$d/state "$bin" run 12 --step 1 --backend sim --machine 2x-dgx-h100 \
    --json >"$d/run.json" 2>"$d/err"
  python3 "$src/tests/labs/diagnose_solver.py" "$d/run.json" 2>>"$d/err" | cut -f1-2
}

a=$(diagnosis s1 1); b=$(diagnosis s1 2)
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "one seed, one learner, one preset: the same fault twice ('$a' vs '$b')"
seen="$a"
for s in s2 s3 s4; do seen="$seen
$(diagnosis $s 1)"; done
n=$(printf '%s\n' "$seen" | grep -c . ); distinct=$(printf '%s\n' "$seen" | sort -u | grep -c .)
[ "$n" -eq 4 ] && [ "$distinct" -ge 2 ] && ok || { bad "four seeds should draw more than one fault: $(echo $seen)"; }

printf '{"name": "x", "draw_sed": "typo"}\n' >"$tmp/typo.json"
MGPULAB_CLASS=$tmp/typo.json XDG_STATE_HOME=$tmp/st "$bin" list >"$tmp/typo.out" 2>&1
grep -q 'draw_sed' "$tmp/typo.out" && grep -q 'draw_seed' "$tmp/typo.out" && ok ||
  { bad "an unknown member should be named, with draw_seed among the known"; cat "$tmp/typo.out"; }

echo "class_draw_seed: $pass passed, $fail failed"
[ $fail -eq 0 ]
