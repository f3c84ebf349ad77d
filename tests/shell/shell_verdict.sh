#!/bin/bash
# shell_verdict.sh - a verdict is readable whole at 80x24 (issue 10, items 1
# and 2): every failed check with its saw/wanted/where and the diagnosis in
# the `v` view; an exercise's error (a typo, a syntax error) with its
# file:line and traceback in the log pane, where the verdict points.
source "$(dirname "$0")/tmux_lib.bash" "$1"

# --- 1: three failed checks, long messages, an 80x24 terminal ---------------
use_test_labs
start_shell 80 24 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
keys j j j j j
wait_for 'Three checks fail' 5
keys r
wait_for 'FAIL +\(' 20
wait_for 'press v for the whole verdict' 5
ok "the box says when the verdict is cut"
keys v
wait_for 'Verdict: Three checks fail' 5
wait_for 'Checks: 3 of 4 failed' 5
wait_for 'tail-of-first' 5
wait_for 'nowhere-first' 5
# the rest is below: scroll the view until the last check is there
for _ in $(seq 1 6); do keys j j j j j; done
wait_for 'tail-of-third' 5
wait_for 'wanted: +three-wanted' 5
wait_for 'fourth check: why, from your topology' 5
wait_for 'GPU7->GPU0; slowest hop NV2' 5
wait_for 'where: +where-fourth' 5
ok "v shows every failed check whole, with saw, wanted and where"
keys q
wait_gone 'Verdict: Three' 5
keys q
wait_exit "$SHELL_PID" 10

# --- 2: the exercise's error in the log pane ---------------------------------
use_real_labs || { echo "ok - # SKIP labs/00-welcome is not there"; exit 0; }
WORK="$XDG_STATE_HOME/mgpulab/work/00-welcome"
cat >"$TMPD/typo.sh" <<'ED'
#!/bin/sh
sed -i 's/mgpu\.tensor(n)/mgpu.tensr(n)/' "$1"
ED
cat >"$TMPD/syntax.sh" <<'ED'
#!/bin/sh
sed -i 's/mgpu\.tensr(n)/mgpu.tensor(n)/; s/checksum = x:checksum()}/checksum = x:checksum()/' "$1"
ED
chmod +x "$TMPD/typo.sh" "$TMPD/syntax.sh"
export EDITOR="$TMPD/typo.sh"
start_shell 80 24 --backend sim --machine dgx-h100
wait_for 'Welcome' 20
keys Enter
wait_for 'Steps: 00-welcome' 5
keys j j
wait_for 'Hands-on' 5
keys r
wait_for '(PASS|FAIL) +\(' 60
keys e
wait_for 'FAIL +\(' 60
grep -q 'mgpu.tensr' "$WORK/hello.lua" || fail "the editor did not put the typo in"
keys 5 z
# Both ranks hit the typo; the run stops at the first rank that fails, so
# which rank's error the log shows is a race (rank 1's, under ASan).
wait_for "\\[r[0-9]+\\] error: hello.lua:[0-9]+: attempt to call" 20
wait_for "field 'tensr'" 5
wait_for "/work/00-welcome/hello.lua" 5
ok "a typo: the log pane shows the error with file:line and the script"
keys z
# a syntax error: the whole message with both line numbers
sed -i 's/mgpu\.tensr(n)/mgpu.tensor(n)/; s/checksum = x:checksum()}/checksum = x:checksum()/' "$WORK/hello.lua"
wait_for 'FAIL +\(' 60
keys z
wait_for "hello.lua:[0-9]+: '}' expected" 20
wait_for "at line [0-9]+\\)" 5
ok "a syntax error: the log pane shows it with both line numbers"
keys z v
wait_for "Verdict: Hands-on" 5
wait_for "hello.lua:[0-9]+: '}' expected" 5
wait_for "at line [0-9]+\\) near" 5
wait_for "where: +log pane" 5
ok "the verdict view shows the syntax error whole"
keys q
wait_gone 'Verdict: Hands-on' 5
keys q
# the watcher may still be re-running the check for the last save: agree
end=$((SECONDS + 30))
while kill -0 "$SHELL_PID" 2>/dev/null && [ $SECONDS -lt $end ]; do
    screen | grep -q 'Cancel it and quit' && keys y
    sleep 0.2
done
wait_exit "$SHELL_PID" 10
