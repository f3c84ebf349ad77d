#!/bin/bash
# class_watch.sh - the instructor's live view during a session: `mgpulab
# report --class SHARE --watch` in tmux while learners run steps under a
# class configuration whose "share" is SHARE. Each step's export lands
# there (atomically) and the grid updates; a learner failing a step three
# times and one stuck on it past "stuck_minutes" are marked; Enter opens a
# learner's last verdict; the pacing keeps lab 1 closed and the steps in
# order until o opens the next lab; q quits.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_real_labs || { echo "# the real labs are needed"; exit 0; }
share=$TMPD/share
mkdir -p "$share"
cat >"$TMPD/class.json" <<J
{"name": "Live class", "backend": "sim", "machine": "dgx-h100", "labs": ["00-welcome", "01-topology"],
 "roster": [{"id": "ada", "name": "Ada Lovelace"}, {"id": "alan", "name": "Alan Turing"}],
 "share": "$share", "stuck_minutes": 0.05,
 "pacing": {"steps_in_order": true, "labs_opened_by_instructor": true}}
J
export MGPULAB_CLASS=$TMPD/class.json
# a learner: own state, own login name
learn() { local id=$1; shift; (export USER=$id XDG_STATE_HOME=$TMPD/learners/$id; mkdir -p "$XDG_STATE_HOME"; "$BIN" "$@"); }

tm kill-session -t main 2>/dev/null
tm new-session -d -s main -x 160 -y 30 "exec env NO_COLOR=1 TERM=tmux-256color TZ=UTC MGPULAB_CLASS=$MGPULAB_CLASS XDG_STATE_HOME=$TMPD/instructor MGPULAB_LABS=$MGPULAB_LABS $(printf '%q ' "$BIN") report --class $(printf '%q' "$share") --watch" || fail "tmux did not start"
wait_for "mgpulab class 'Live class' - live: 2 learners" 20
wait_for '^>Ada Lovelace +- +- +- +-' 10
ok "the roster before anyone started"

learn ada run 0 --step 1 >/dev/null 2>&1
ls "$share"/ada@*.json >/dev/null 2>&1 || fail "no export in the share after a step: $(ls "$share")"
ls "$share" | grep -q 'tmp-' && fail "a temporary file was left in the share"
wait_for 'Ada Lovelace +read +- +- +-' 10
ok "a step's export lands in the share and the grid shows it"

learn alan run 0 --step 1 >/dev/null 2>&1
learn alan run 0 --step 2 --answer backend=sim --answer gpus=8 --answer emulated=no >/dev/null 2>&1
for i in 1 2 3; do learn alan run 0 --step 3 >/dev/null 2>&1; done
wait_for 'Alan Turing +read +passed 1 +failed 3 +- +FAILING 00-welcome hello \(3 attempts\)' 10
ok "failing a step three times is marked"
wait_for 'Alan Turing .*STUCK [0-9]+ min on 00-welcome hello' 15
ok "stuck on a step past stuck_minutes is marked"

keys Down
wait_for '^>Alan Turing' 5
keys Enter
wait_for 'Alan Turing: last verdict' 5
wait_for '00-welcome step 3 Hands-on: every rank says who it is - failed 3' 5
wait_for 'rank 0 reports world 1' 5
keys x
wait_gone 'Alan Turing: last verdict' 5
ok "Enter opens the learner's last verdict"

# pacing: steps in order, lab 1 closed until the instructor opens it
out=$(learn ada run 0 --step 3 2>&1)
grep -q "LOCKED step 3 (hello) opens when step 2 (backends) is done" <<<"$out" || fail "a step out of order ran: $out"
out=$(learn alan run 1 --step 1 2>&1)
grep -q "LOCKED lab 01-topology is not open yet" <<<"$out" || fail "a closed lab ran: $out"
wait_for '01-topology \(closed\)' 5
ok "pacing: steps in order, a closed lab"
keys o
wait_for 'opened lab 01-topology for the class' 5
grep -qx "01-topology" "$share/open-labs.txt" || fail "open-labs.txt: $(cat "$share/open-labs.txt" 2>&1)"
out=$(learn alan run 1 --step 1 2>&1)
grep -q "LOCKED" <<<"$out" && fail "the opened lab is still locked: $out"
keys Tab
wait_for '\[01-topology\]' 5
wait_for 'Alan Turing +awaiting 1 +-' 10
ok "o opens the next lab; the learner runs it and the grid shows it"

pid=$(tm display-message -p -t main '#{pane_pid}')
keys q
wait_exit "$pid" 10
ok "q quits"
