#!/usr/bin/env bash
# options.sh - global options: bad values give a clear message and exit 2,
# never a crash; help and version work.
set -u
bin=$1
fail=0; pass=0
expect() { # expect STATUS PATTERN -- ARGS...
  local want=$1 pat=$2; shift 3
  local out rc
  out=$("$bin" "$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qE -- "$pat" <<<"$out"; then
    echo "FAIL: mgpulab $* -> rc=$rc (want $want), output:"; echo "$out" | head -5; fail=$((fail+1))
  else pass=$((pass+1)); fi
}
expect 0 "usage: mgpulab" -- --help
expect 0 "^mgpulab [0-9]" -- --version
expect 2 "not a command" -- frobnicate
expect 2 "not a backend" -- topo --backend gpu
expect 2 "needs a value" -- topo --backend
expect 2 "--ranks.*out of range" -- topo --ranks 0
expect 2 "--ranks.*not a whole number" -- topo --ranks 1e99
expect 2 "--timeout" -- topo --timeout -5
expect 2 "not a launcher" -- topo --launcher ssh
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
