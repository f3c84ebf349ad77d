#!/usr/bin/env bash
# scripts_deps.sh - scripts/run installs (or, as non-root, asks for) only
# what building and running needs; scripts/test asks for the test tools too
# (issue 10, item 17: run asked for Slurm, munge, Open MPI and tmux). dpkg,
# id and apt-get are stand-ins on PATH: nothing is installed, and both
# scripts stop before building.
set -u
SRC=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d /tmp/mgpu-deps.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

mkdir -p "$tmp/bin"
# no package installed; the user is $FAKE_UID; apt-get records its arguments and fails
printf '#!/bin/sh\nexit 1\n' >"$tmp/bin/dpkg-query"
printf '#!/bin/sh\n[ "$1" = -u ] && { echo "$FAKE_UID"; exit 0; }\nexec /usr/bin/id "$@"\n' >"$tmp/bin/id"
printf '#!/bin/sh\necho "$*" >>"%s/apt.log"\n[ "$1" = update ] && exit 0\nexit 1\n' "$tmp" >"$tmp/bin/apt-get"
chmod +x "$tmp/bin/"*
export PATH="$tmp/bin:$PATH"

test_only="tmux slurm-wlm munge openmpi-bin jq"
running="libmd4c-dev libncurses-dev liblua5.4-dev libjansson-dev libexpat1-dev cmake"

# as a user: the message names the packages to install
out=$(FAKE_UID=1000 bash "$SRC/scripts/run" 2>&1); rc=$?
[ $rc -ne 0 ] || bad "scripts/run went on with packages missing"
grep -q "sudo apt-get install" <<<"$out" || bad "scripts/run did not say how to install: $out"
for p in $running; do grep -qw -- "$p" <<<"$out" || bad "scripts/run does not ask for $p: $out"; done
for p in $test_only; do grep -qw -- "$p" <<<"$out" && bad "scripts/run asks for the test tool $p: $out"; done

out=$(FAKE_UID=1000 bash "$SRC/scripts/test" 2>&1); rc=$?
[ $rc -ne 0 ] || bad "scripts/test went on with packages missing"
for p in $running $test_only; do grep -qw -- "$p" <<<"$out" || bad "scripts/test does not ask for $p: $out"; done

# as root: apt-get is asked for the run packages only
FAKE_UID=0 bash "$SRC/scripts/run" >/dev/null 2>&1
inst=$(grep "^install" "$tmp/apt.log" 2>/dev/null)
[ -n "$inst" ] || bad "scripts/run as root did not call apt-get install"
for p in $running; do grep -qw -- "$p" <<<"$inst" || bad "scripts/run as root does not install $p: $inst"; done
for p in $test_only; do grep -qw -- "$p" <<<"$inst" && bad "scripts/run as root installs the test tool $p: $inst"; done

[ $fail -eq 0 ] && echo "ok - scripts/run asks for what running needs, scripts/test for the test tools too"
exit $fail
