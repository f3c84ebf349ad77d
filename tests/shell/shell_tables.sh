#!/bin/bash
# shell_tables.sh - Markdown tables in the step text are laid out as columns
# with a rule under the header, wrapped to the text area (issue 10, item 5):
# lab 0's key table, lab 1's link legend and lab 2's peak table at 80x24,
# where they used to run on as "| cell | path | ... |---|---|".
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_real_labs || { echo "ok - # SKIP the repository's labs are not here"; exit 0; }

# page_until REGEX: PgDn through the focused text until the screen shows it.
page_until() {
    for _ in $(seq 1 12); do
        screen | grep -Eq -- "$1" && return 0
        keys PgDn
        sleep 0.2
    done
    wait_for "$1" 5
}
no_runon() { screen | grep -q -- '|---|' && fail "a table ran on as text"; return 0; }

start_shell 80 24 --backend sim --machine dgx-h100
wait_for 'Welcome' 20
keys Enter
wait_for 'Steps: 00-welcome' 5
keys Tab
wait_for '─ > Finding your way around the shell' 5
page_until '│ key +\| does +│'
page_until '│ -+\+-+ +│'
page_until '│ r +\| run the step \(its measurement and its check\) +│'
page_until '│ v +\| the whole verdict: every check, what it saw, +│'
page_until '│ +\| wanted, where to look +│'
no_runon
ok "lab 0: the key table has columns, a rule and wrapped cells"

keys Escape Escape
wait_for '─ > Labs' 5
keys j Enter
wait_for 'Steps: 01-topology' 5
keys Tab
page_until '│ cell +\| path +\| one direction +│'
page_until '│ NV# +\| # bonded NVLinks +\| # x 25 GB/s +│'
page_until '│ +\| \(through NVSwitch +\| \(NVLink 4\) +│'
page_until '│ NET +\| another host +\| the NIC: NDR 400 +│'
no_runon
ok "lab 1: the link legend is a table"

keys Escape Escape
wait_for '─ > Labs' 5
keys j Enter
wait_for 'Steps: 02-allreduce' 5
keys j j Tab
wait_for '─ > How close to the peak' 5
page_until '│ link +\| peak per direction +│'
page_until '│ NV18 \(H100/H200, NVLink 4\) +\| 18 x 25 = 450 GB/s +│'
page_until '│ NDR InfiniBand \(between +\| 50 GB/s +│'
page_until '│ nodes\) +\| +│'
no_runon
ok "lab 2: the peak table is a table"

keys q
wait_exit "$SHELL_PID" 10
