#!/bin/bash
# shell_polish.sh - issue 10, item 15, on the repository's labs at 120x40:
# lab titles wrap in the left column where it has the rows (they were cut
# while the steps box stood empty); the backend is said once, short, with
# what ruled cuda out in the log pane; the results pane's keys [ and ] do
# not read as a checkbox; the sweep's progress bar counts the large sizes
# for their time; the bandwidth pane draws block characters on a UTF-8
# terminal, shows the sim's bursts while data flows and 0.0 once the step
# ended (it kept "now 55.0"); the last results of a step come back after
# a restart.
export LC_ALL=C.UTF-8 # before the tmux server starts: the shell sees a UTF-8 terminal
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_real_labs || { echo "ok - # SKIP the repository's labs are not here"; exit 0; }

start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'SIMULATED machine dgx-h100' 20
wait_for '│\[ \] 2 All-reduce +0/[0-9]+│' 5
wait_for '│ +baseline +│' 5
wait_for '│\[ \] 8 The collective- +0/[0-9]+│' 5
wait_for '│ +mismatch deadlock +│' 5
ok "lab titles wrap in the left column"
[ "$(screen | grep -c 'SIMULATED machine')" -eq 1 ] || fail "the backend line is said more than once"
wait_for '│SIMULATED dgx-h100  matrix' 5
ok "the backend line once; the topology pane names its machine in two words"

keys j j Enter
wait_for 'Steps: 02-allreduce' 5
keys r 2
wait_for '─ > 2 Bandwidth' 5
# the sim's modelled load comes in bursts: blocks and a number above 0.0 on
# some GPU's row (which GPUs a 100 ms sample catches mid-call varies). It
# was intermittent until 2026-12-03 (4th session): the sweep's one-scalar
# all-reduce after every size replaced the size's rate for its hold, so a
# sample could see only ~0 GB/s; a live higher rate now stays. A run that
# shows no traffic at all still gets one more try, and says so.
traffic='│GPU[0-9]+ +NVLink TX .*[▁▂▃▄▅▆▇█].* [1-9][0-9]*\.[0-9] +RX'
seen=0
for attempt in 1 2; do
  end=$((SECONDS + $(guard 60)))
  while [ $SECONDS -lt $end ]; do
    s=$(screen)
    grep -Eq -- "$traffic" <<<"$s" && { seen=1; break; }
    grep -q 'step ended' <<<"$s" && break
    sleep 0.1
  done
  [ $seen = 1 ] && break
  echo "# attempt $attempt: the sweep ended with no traffic in the bandwidth pane; running it again"
  wait_for 'step ended' 120
  keys r
  wait_for 'running' 20
done
[ $seen = 1 ] || fail "the bandwidth pane never showed the sweep's traffic (2 runs)"
ok "the bandwidth pane shows the sweep's traffic, in block characters"
# the bar weighs each size by its time: the 128 MiB row is about half of it
wait_for 'bench: 128 MiB done' 120
pct=$(screen | grep -o '\] *[0-9]*% bench: 128 MiB done' | grep -o '[0-9]*%' | tr -d %)
[ -n "$pct" ] && [ "$pct" -ge 30 ] && [ "$pct" -le 75 ] || fail "progress after the 128 MiB row: ${pct:-?} % (wanted 30-75)"
ok "progress after the 128 MiB row: $pct %"
wait_for 'step ended' 120
wait_for '│GPU0  NVLink TX .* 0\.0  RX .* 0\.0' 10
ok "after the step the links read 0.0"
keys 3
wait_for '─ > 3 Results' 5
wait_for "'\[' '\]' prev/next document" 5
screen | grep -q '\[ \] document' && fail "the document keys still read as a checkbox"
wait_for 'all_reduce, 8 ranks' 5
ok "results pane: the keys [ and ] as keys"
keys q
wait_exit "$SHELL_PID" 20

# a restart: the step's last results are back in the results pane
start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'SIMULATED machine dgx-h100' 20
keys j j Enter 3
wait_for '─ > 3 Results' 5
wait_for '\[2/2\] table' 10
wait_for 'all_reduce, 8 ranks' 5
ok "the last results of the step after a restart"
keys q
wait_exit "$SHELL_PID" 10

# 80x24: marking a reading step read keeps the text's rows (the verdict box
# took 7 rows to say "read", leaving the text 2 lines)
start_shell 80 24 --backend sim --machine dgx-h100
wait_for 'Welcome' 20
keys Enter
wait_for 'Steps: 00-welcome' 5
keys r
wait_for '\(\*\) 1 Finding' 20
wait_for 'READ' 5
wait_for '─ Finding your way around the shell  1-([6-9]|1[0-9])/' 5
ok "a read step's verdict is one line; the text keeps its rows"
keys q
wait_exit "$SHELL_PID" 10

# auto backend without a GPU: a short banner, the reason in the log pane
if ! [ -e /dev/nvidiactl ]; then
    start_shell 120 40
    wait_for 'SIMULATED machine dgx-h100 \(auto: no usable GPU\) why: log 5' 20
    keys 5
    wait_for '\[lab\] why not cuda: ' 5
    ok "auto: a short banner, why not cuda in the log pane"
    keys q
    wait_exit "$SHELL_PID" 10
fi
