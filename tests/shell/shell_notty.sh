#!/bin/bash
# shell_notty.sh - the shell needs a terminal: with stdout redirected to a
# file it exits 2 and says why.
BIN=${1:?usage: bash shell_notty.sh /path/to/mgpulab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
set +e
"$BIN" --backend sim >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "FAIL: exit status $rc, wanted 2"; cat "$tmp/err"; exit 1; }
grep -q 'needs a terminal' "$tmp/err" || { echo "FAIL: no message on stderr:"; cat "$tmp/err"; exit 1; }
[ ! -s "$tmp/out" ] || { echo "FAIL: wrote to the redirected stdout:"; cat "$tmp/out"; exit 1; }
echo "ok - stdout a file: exit 2 with: $(head -1 "$tmp/err")"
# stdin not a terminal either (stdout is a pipe here as well)
set +e
echo | "$BIN" --backend sim 2>"$tmp/err" | cat >/dev/null
rc=${PIPESTATUS[1]}
set -e
[ "$rc" -eq 2 ] || { echo "FAIL: with a pipe, exit status $rc, wanted 2"; exit 1; }
echo "ok - pipes: exit 2"
