#!/usr/bin/env bash
# asan_lab_coverage.sh - what the lab runs the sanitized pass leaves to the
# release pass would add to it (issue 9 part 5). The sanitized pass runs each
# lab once, solved (labs.exercises.ID with MGPU_TEST_ASAN=1); the release
# pass adds the unsolved runs, every lab on every preset (labs.presets.ID)
# and lab 8's hangs on other presets (labs.deadlock). Their point there is
# behaviour; under the sanitizers it would be lines not otherwise reached.
# This builds the sim with gcc --coverage, runs the sanitized pass's tests
# (MGPU_TEST_ASAN=1, the labs as it runs them), takes the executed lines of
# engine/, cli/ and shell/, then runs the release pass's lab tests on top and
# prints the lines only they reached (none, or the sanitized pass misses
# code). About 15 min on 2 cores.
# usage: bench/asan_lab_coverage.sh [build dir (default /tmp/mgpu-cov)]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-/tmp/mgpu-cov}
jobs=$(nproc)
cmake -S "$here" -B "$b" -DCMAKE_BUILD_TYPE=Debug -DMGPU_WITH_CUDA=OFF -DCMAKE_C_FLAGS=--coverage \
  -DCMAKE_EXE_LINKER_FLAGS=--coverage >/dev/null
cmake --build "$b" -j"$jobs" >/dev/null
find "$b" -name '*.gcda' -delete

# executed engine/cli/shell lines of the product's objects, one "file:line" each
lines() {
  (cd "$b" && find CMakeFiles -name '*.gcda' -print0 | xargs -0 -n 16 gcov -j -t 2>/dev/null) | python3 -c '
import json, sys
seen = set()
for doc in sys.stdin:
    if not doc.startswith("{"): continue
    for f in json.loads(doc).get("files", []):
        name = f["file"].split(sys.argv[1] + "/", 1)[-1]
        if name.split("/")[0] not in ("engine", "cli", "shell"): continue
        seen.update("%s:%d" % (name, l["line_number"]) for l in f["lines"] if l["count"] > 0)
print("\n".join(sorted(seen)))' "$here"
}

out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
export MGPU_SOURCE_DIR=$here MGPULAB_LABS=$here/labs
t0=$(date +%s)
MGPU_TEST_ASAN=1 ctest --test-dir "$b" -j"$jobs" -E '^labs\.(presets|deadlock)' >"$out/asan.log" 2>&1 ||
  { echo "the sanitized pass's tests failed in the coverage build:"; grep -A3 'FAILED' "$out/asan.log"; exit 1; }
lines >"$out/asan.lines"
t1=$(date +%s)
ctest --test-dir "$b" -j"$jobs" -R '^labs\.' >"$out/release.log" 2>&1 ||
  { echo "the release pass's lab tests failed in the coverage build:"; grep -A3 'FAILED' "$out/release.log"; exit 1; }
lines >"$out/all.lines"
t2=$(date +%s)
extra=$(comm -13 "$out/asan.lines" "$out/all.lines")
echo "# lines of engine/, cli/, shell/ run by the sanitized pass's tests: $(wc -l <"$out/asan.lines") ($((t1 - t0)) s)"
echo "# added by the release pass's lab runs on top of them: $(printf '%s' "$extra" | grep -c . || true) ($((t2 - t1)) s)"
[ -z "$extra" ] || printf '%s\n' "$extra"
