#!/bin/bash
# shell_small.sh - at 80x24 the step text gets the rows (issue 10 walk): it
# had 9 rows on a new step and 1-3 under a verdict, the pane and the verdict
# box taking the rest. Now the pane starts at a third of the room and the
# verdict box shows its head (v: all of it); + and z still size the pane.
# 120x40 keeps the old split (shell_polish.sh, shell_verdict.sh).
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_real_labs || { echo "ok - # SKIP the repository's labs are not here"; exit 0; }
# the rows the text area shows: "1-N/" in its title
text_rows() { screen | grep -o '─ [^│]* 1-[0-9]*/[0-9]*' | head -1 | sed 's/.* 1-\([0-9]*\)\/.*/\1/'; }

start_shell 80 24 --backend sim --machine dgx-h100
wait_for 'Welcome' 20
keys j Enter
wait_for '> Steps: 01-topology' 5
wait_for '─ The link matrix  1-[0-9]+/' 5
n=$(text_rows)
[ "${n:-0}" -ge 12 ] || fail "a new step's text has ${n:-?} rows at 80x24 (wanted >= 12)"
ok "a new step's text: $n rows"
keys r
wait_for 'AWAITING +\(' 60
wait_for 'more: press v for the whole verdict' 5
n=$(text_rows)
[ "${n:-0}" -ge 7 ] || fail "under a verdict the text has ${n:-?} rows at 80x24 (wanted >= 7)"
ok "under a verdict: $n rows; the box points at v"
# the pane keeps a usable height and grows on demand
keys 1
wait_for '┌─ > 1 Topology ─ 2 ─ 3 ─ 4 ─ 5 ─' 5
wait_for '│GPU0 +X +NV18' 5
keys +
keys +
keys +
wait_for '│GPU2 +NV18 +NV18 +X ' 5
ok "+ makes the pane taller"
keys z
wait_for '│GPU7 +NV18 .* X ' 5
keys z
wait_for 'more: press v for the whole verdict' 5
ok "z maximises the pane and back"
keys v
wait_for 'Checks: 0 passed; 3 questions wait' 5
keys Escape
wait_gone 'Checks: ' 5
keys q
wait_exit "$SHELL_PID" 10
