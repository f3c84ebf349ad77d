# hostile_lib.bash - what the tests/hostile/*.sh share: a scratch directory,
# pass/fail counting, and a run that cannot hang the suite. Each test there
# reproduces a case of a hostile probe (issue 16) and fails without its fix.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
has() { grep -qE -- "$2" "$1"; }
# hrun OUTFILE ARGS... -> rc. A hang (the failure these tests look for) is
# cut by SIGKILL after a generous bound and reads as rc 137; nothing here
# measures time, a fixed binary answers long before.
hrun() {
  local out=$1; shift
  timeout -s KILL 120 "$bin" "$@" >"$out" 2>&1 </dev/null; rc=$?
}
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
