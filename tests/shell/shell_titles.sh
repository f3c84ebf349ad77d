#!/bin/bash
# shell_titles.sh - at 80x24 no lab or step title is cut (issue 10 walk,
# item 15 again): the left column is 24 wide, and the titles were wrapped to
# two rows only where both lists fit whole, else cut ("DDP: what / PyTorch
# does f", "Export the topolog"). Now they wrap to up to four rows, the list in
# use gets its rows, the other scrolls and its frame says what is hidden.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_real_labs || { echo "ok - # SKIP the repository's labs are not here"; exit 0; }

start_shell 80 24 --backend sim --machine dgx-h100
wait_for 'Welcome' 20
# no lab open: the lab list gets its rows, every title whole, the progress
# on its first row
wait_for '│\[ \] 4 DDP: what +0/[0-9]+│' 5
wait_for '│      PyTorch does for  │' 5
wait_for '│      us, one level down│' 5
# the last labs are below: End selects the last one, the list scrolls
keys End
wait_for '│\[ \] 8 The +0/[0-9]+│' 5
wait_for '│      collective-       │' 5
wait_for '│      mismatch deadlock │' 5
wait_for '│\[ \] 9 The pitfalls +0/[0-9]+│' 5
ok "lab titles wrap, whole"

# a lab open, focus in its steps: they get their rows, whole; the labs
# scroll, and their frame says how many are below
keys Home
wait_for '│\[ \] 0 Welcome +0/[0-9]+│' 5
keys j Enter
wait_for '> Steps: 01-topology' 5
wait_for '│\[ \] 2 NUMA, CPU         │' 5
wait_for '│      affinity, PCIe and│' 5
wait_for '│      NICs              │' 5
wait_for '│\[ \] 4 Export the        │' 5
wait_for '│      topology as NCCL  │' 5
wait_for '│      XML               │' 5
wait_for '│\[ \] 1 Topology +0/4│' 5
wait_for '[0-9]+ more below ┘' 5
ok "step titles wrap whole while the steps have focus; the labs say what is below"
# back in the lab list: it gets its rows again
keys Escape
wait_for '> Labs' 5
keys End
wait_for '│      mismatch deadlock │' 5
wait_for '│\[ \] 9 The pitfalls +0/[0-9]+│' 5
ok "the lab list takes the rows back when it has focus"
# lab 3's last step takes four rows at 24 columns
keys Home j j j Enter
wait_for '> Steps: 03-p2p' 5
wait_for '│\[ \] 5 CUDA IPC between  │' 5
wait_for '│      the handle.s      │' 5
wait_for '│      lifetime          │' 5
ok "a four-row step title, whole"
keys q
wait_exit "$SHELL_PID" 10
