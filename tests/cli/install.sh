#!/usr/bin/env bash
# install.sh - installing for a class: `cmake --install` to a temporary
# prefix, then `list`, a lab and the shell run from that prefix with the
# source tree out of reach (a private mount namespace covers it with an
# empty tmpfs where unshare is allowed; MGPULAB_LABS is never set), with
# the docs. The learners' component alone carries no solutions, and `hint
# --solution` there says so; configured with MGPU_INSTALL_SOLUTIONS=OFF no
# rule installs any. Then `cpack -G DEB` makes the learners' .deb (the
# runtime dependencies declared, the docs, no solutions/ nor answers-*.txt)
# and the instructor's (the solutions, needing mgpulab).
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

check "the docs are installed" '[ -f "$tmp/p/share/doc/mgpulab/classroom.md" ] && [ -f "$tmp/p/share/doc/mgpulab/labs.md" ]'
check "a full install has the solutions (the instructor's component)" '[ -f "$tmp/p/share/mgpulab/labs/00-welcome/solutions/hello.lua" ]'

# The learners' component alone: no solutions, no answer files, and
# `hint --solution` says where they are.
cmake --install "$bdir" --prefix "$tmp/l" --component learner >"$tmp/install-l.log" 2>&1; rc=$?
check "cmake --install --component learner exits 0 (rc=$rc)" '[ $rc -eq 0 ] && [ -x "$tmp/l/bin/mgpulab" ]'
check "the learners' install has the labs but no solutions/ and no answers-*.txt" '[ -f "$tmp/l/share/mgpulab/labs/00-welcome/lab.lua" ] && [ -z "$(find "$tmp/l" -name solutions -o -name "answers-*")" ]'
env -u MGPULAB_LABS -u MGPULAB_CHECKS XDG_STATE_HOME=$tmp/lstate "$tmp/l/bin/mgpulab" hint 0 --step 3 --solution >"$tmp/hint.out" 2>&1; rc=$?
check "hint --solution there says the solutions are not installed (rc=$rc)" '[ $rc -eq 1 ] && grep -q "reference solutions are not installed here" "$tmp/hint.out"'
env -u MGPULAB_LABS -u MGPULAB_CHECKS XDG_STATE_HOME=$tmp/lstate "$tmp/l/bin/mgpulab" run 0 --backend sim --machine single-gpu >/dev/null 2>&1; rc=$?
check "lab 0 runs from the learners' install (rc=$rc)" '[ $rc -eq 0 ]'

# MGPU_INSTALL_SOLUTIONS=OFF: the install rules name no solution at all
# (configured only: the rules are what the option changes).
if cmake -S "$src" -B "$tmp/off" -DMGPU_INSTALL_SOLUTIONS=OFF -DMGPU_WITH_CUDA=OFF >"$tmp/off.log" 2>&1; then
  check "MGPU_INSTALL_SOLUTIONS=OFF: no solutions in the install rules, no instructor package" '! grep -qE "DESTINATION \"[^\"]*/solutions\"|instructor" "$tmp/off/cmake_install.cmake" && grep -q "CPACK_COMPONENTS_ALL \"learner\"" "$tmp/off/CPackConfig.cmake"'
else
  bad "configuring with MGPU_INSTALL_SOLUTIONS=OFF failed: $(tail -3 "$tmp/off.log")"
fi

# The .debs: mgpulab for the learners (declared dependencies, the same files
# but no solutions), mgpulab-instructor with the solutions.
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null; then
  (cd "$bdir" && cpack -G DEB -B "$tmp/deb" >"$tmp/cpack.log" 2>&1); rc=$?
  deb=$(ls "$tmp"/deb/mgpulab_*.deb 2>/dev/null | head -1)
  ideb=$(ls "$tmp"/deb/mgpulab-instructor_*.deb 2>/dev/null | head -1)
  check "cpack made the learners' and the instructor's .deb (rc=$rc: $(tail -2 "$tmp/cpack.log"))" '[ $rc -eq 0 ] && [ -n "$deb" ] && [ -n "$ideb" ]'
  if [ -n "$deb" ]; then
    info=$(dpkg-deb -I "$deb")
    for dep in libncursesw6 liblua5.4-0 libjansson4 libexpat1 libmd4c0 libopenblas0 libstdc++6 libgcc-s1; do
      check "the .deb depends on $dep" 'grep -q "^ Depends:.*$dep" <<<"$info"'
    done
    check "the learners' package is called mgpulab" 'grep -q "^ Package: mgpulab$" <<<"$info"'
    check "NCCL and the driver are suggested, not required" 'grep -q "^ Suggests:.*libnccl2" <<<"$info" && ! grep -q "^ Depends:.*nccl" <<<"$info"'
    files=$(dpkg-deb -c "$deb")
    check "the .deb holds the binary and the labs" 'grep -q "/bin/mgpulab$" <<<"$files" && grep -q "share/mgpulab/labs/00-welcome/lab.lua$" <<<"$files"'
    check "the learners' .deb holds no solutions/ and no answers-*.txt" '! grep -qE "/solutions/|answers-[^/]*\.txt$" <<<"$files"'
    check "the learners' .deb holds docs/classroom.md and docs/labs.md" 'grep -q "share/doc/mgpulab/classroom.md$" <<<"$files" && grep -q "share/doc/mgpulab/labs.md$" <<<"$files"'
  fi
  if [ -n "$ideb" ]; then
    info=$(dpkg-deb -I "$ideb")
    files=$(dpkg-deb -c "$ideb")
    check "the instructor's .deb holds every lab's solutions and answers" 'grep -q "share/mgpulab/labs/00-welcome/solutions/hello.lua$" <<<"$files" && grep -q "share/mgpulab/labs/00-welcome/solutions/answers-dgx-h100.txt$" <<<"$files" && [ "$(grep -c "/solutions/" <<<"$files")" -ge "$(ls -d "$src"/labs/*/solutions | wc -l)" ]'
    check "the instructor's .deb holds nothing else and needs mgpulab" '! grep -qE "/bin/|lab\.lua$" <<<"$files" && grep -q "^ Depends: mgpulab (= " <<<"$info"'
  fi
fi

echo "install: $pass passed, $fail failed"
[ $fail -eq 0 ]
