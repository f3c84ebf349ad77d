#!/usr/bin/env bash
# install.sh - installing for a class: `cmake --install` to a temporary
# prefix, then `list`, a lab and the shell run from that prefix with the
# source tree out of reach (a private mount namespace covers it with an
# empty tmpfs where unshare is allowed; MGPULAB_LABS is never set). Then
# `cpack -G DEB` makes a .deb whose control file declares the runtime
# dependencies and whose contents are the same files.
set -u
bin=$1
bdir=$(cd "$(dirname "$bin")" && pwd)
src=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d /tmp/mgpu-install.XXXXXX)
trap 'tmux -L "mgpu-install-$$" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

cmake --install "$bdir" --prefix "$tmp/p" >"$tmp/install.log" 2>&1; rc=$?
check "cmake --install exits 0 (rc=$rc: $(tail -3 "$tmp/install.log"))" '[ $rc -eq 0 ]'
check "binary installed" '[ -x "$tmp/p/bin/mgpulab" ]'
check "labs installed under share/mgpulab" '[ -f "$tmp/p/share/mgpulab/labs/00-welcome/lab.lua" ]'
check "checks installed under share/mgpulab" 'ls "$tmp/p/share/mgpulab/checks/"*.lua >/dev/null 2>&1'

# What runs from the prefix: a script, so it can run inside the namespace.
cat >"$tmp/from-prefix.sh" <<SH
set -u
cd /
unset MGPULAB_LABS MGPULAB_CHECKS
export XDG_STATE_HOME=$tmp/state HOME=$tmp/home NO_COLOR=1
mkdir -p \$XDG_STATE_HOME \$HOME
p=$tmp/p/bin/mgpulab
echo "source tree visible: \$(ls -A "$src" 2>/dev/null | wc -l) entries"
\$p list >$tmp/list.txt 2>&1; echo "list rc=\$?"
\$p run 0 --backend sim --machine single-gpu --json >$tmp/run.json 2>$tmp/run.err; echo "run rc=\$?"
tm() { tmux -L mgpu-install-$$ "\$@"; }
tm new-session -d -s main -x 120 -y 40 "exec env NO_COLOR=1 TERM=tmux-256color XDG_STATE_HOME=\$XDG_STATE_HOME \$p --backend sim --machine single-gpu"
for i in \$(seq 1 200); do tm capture-pane -p -t main >$tmp/screen.txt 2>/dev/null; grep -q "Topology" $tmp/screen.txt && break; sleep 0.1; done
tm send-keys -t main q
for i in \$(seq 1 100); do tm has-session -t main 2>/dev/null || break; sleep 0.1; done
tm has-session -t main 2>/dev/null && echo "shell still running" || echo "shell exited"
SH
if unshare -m true 2>/dev/null; then
  unshare -m bash -c "mount -t tmpfs none '$src' && bash '$tmp/from-prefix.sh'" >"$tmp/log.txt" 2>&1
  check "the source tree was out of reach ($(head -1 "$tmp/log.txt"))" 'grep -q "^source tree visible: 0 entries" "$tmp/log.txt"'
else
  echo "# unshare not allowed here: running from the prefix with the source tree present but never named"
  bash "$tmp/from-prefix.sh" >"$tmp/log.txt" 2>&1
fi
check "list exits 0 from the prefix ($(cat "$tmp/list.txt" | head -3))" 'grep -q "^list rc=0" "$tmp/log.txt"'
check "list shows the installed labs" 'grep -qE "^ *0 +Welcome" "$tmp/list.txt" && grep -qE "^ *1 +Topology" "$tmp/list.txt"'
check "run 0 exits 0 from the prefix ($(head -c 300 "$tmp/run.err"))" 'grep -q "^run rc=0" "$tmp/log.txt"'
check "lab 0 ran its steps (step 1, a reading step, read; step 3 ran its exercise on rank workers)" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
s = {x[\"step\"]: x for x in d[\"steps\"]}
assert s[1][\"state\"] == \"read\", s[1]
assert \"rank 0\" in s[3][\"message\"], s[3]
" "$tmp/run.json"'
check "the shell started from the prefix and showed the labs" 'grep -q "Topology" "$tmp/screen.txt"'
check "the shell quit on q" 'grep -q "^shell exited" "$tmp/log.txt"'

# The .deb: declared dependencies and the same files.
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null; then
  (cd "$bdir" && cpack -G DEB -B "$tmp/deb" >"$tmp/cpack.log" 2>&1); rc=$?
  deb=$(ls "$tmp"/deb/mgpulab_*.deb 2>/dev/null | head -1)
  check "cpack made a .deb (rc=$rc: $(tail -2 "$tmp/cpack.log"))" '[ $rc -eq 0 ] && [ -n "$deb" ]'
  if [ -n "$deb" ]; then
    info=$(dpkg-deb -I "$deb")
    for dep in libncursesw6 liblua5.4-0 libjansson4 libexpat1 libmd4c0; do
      check "the .deb depends on $dep" 'grep -q "^ Depends:.*$dep" <<<"$info"'
    done
    check "NCCL and the driver are suggested, not required" 'grep -q "^ Suggests:.*libnccl2" <<<"$info" && ! grep -q "^ Depends:.*nccl" <<<"$info"'
    files=$(dpkg-deb -c "$deb")
    check "the .deb holds the binary and the labs" 'grep -q "/bin/mgpulab$" <<<"$files" && grep -q "share/mgpulab/labs/00-welcome/lab.lua$" <<<"$files"'
  fi
fi

echo "install: $pass passed, $fail failed"
[ $fail -eq 0 ]
