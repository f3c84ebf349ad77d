#!/usr/bin/env bash
# shm_leftovers.sh before|after BIN - nothing of ours stays in /dev/shm
# after the test suite (issue 34: a fresh clone's run left eight
# /dev/shm/mgpulab-tel-* tables, four a pass, from shells the tests killed).
#
# Every test of this build runs with MGPU_SHM_TAG set (tests/CMakeLists.txt),
# which mgpulab puts into the names it makes there: /mgpulab-tel-TAG-PID-...,
# /mgpu-sim-TAG-PID-.... `before` (a CTest fixture's setup, run first) lists
# the entries with the tag that exist already - an earlier run that was cut
# short; `after` (its cleanup, run once every other test has ended) fails on
# any entry with the tag that is not in that list. Other runs on the machine
# (other build trees, people) make names without this tag or with their
# own, so they can neither fail nor hide a leak here. Before it judges,
# `after` proves the tag reaches the names - a shell's table appears under
# it and goes when the shell quits - so it cannot pass because no name
# carries the tag.
set -u
mode=${1:?before or after}
bin=${2:?the mgpulab binary}
tag=${MGPU_SHM_TAG:?MGPU_SHM_TAG must be set (tests/CMakeLists.txt sets it)}
list=${MGPU_SHM_LIST:?MGPU_SHM_LIST must name the file that keeps the list}
ours() { ls -A /dev/shm 2>/dev/null | grep -E "^(mgpulab-tel|mgpu-sim)-$tag-" | sort; }

[ -d /dev/shm ] || { echo "no /dev/shm here: nothing to check"; exit 0; }
if [ "$mode" = before ]; then
  ours >"$list"
  echo "$(wc -l <"$list") entries with tag $tag before the suite"
  exit 0
fi

fail=0
# 1. nothing new with the tag since `before` (first: a shell that starts
#    removes the tables of shells killed with SIGKILL)
[ -f "$list" ] || { echo "FAIL: no list from shm.before ($list)"; exit 1; }
left=$(ours | comm -13 "$list" -)
if [ -n "$left" ]; then
  echo "FAIL: the suite left these in /dev/shm:"
  echo "$left" | sed 's/^/  /'
  fail=1
fi
# 2. the tag reaches the names (else the check above would pass vacuously)
if command -v tmux >/dev/null; then
  tmp=$(mktemp -d); sock=mgpu-shm-$$
  tmux -L $sock new-session -d -s main -x 120 -y 40 \
    "exec env TERM=tmux-256color NO_COLOR=1 XDG_STATE_HOME=$tmp/state MGPU_SHM_TAG=$tag $bin --backend sim --machine dgx-h100"
  pid=$(tmux -L $sock display-message -p -t main '#{pane_pid}')
  seen=0
  for _ in $(seq 1 600); do
    compgen -G "/dev/shm/mgpulab-tel-$tag-$pid-*" >/dev/null && { seen=1; break; }
    sleep 0.1
  done
  [ $seen = 1 ] || { echo "FAIL: the shell's table never appeared as /dev/shm/mgpulab-tel-$tag-$pid-*"; fail=1; }
  tmux -L $sock kill-server 2>/dev/null
  for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  compgen -G "/dev/shm/mgpulab-tel-$tag-$pid-*" >/dev/null &&
    { echo "FAIL: the shell's table stayed after its terminal closed (SIGHUP)"; fail=1; }
  rm -rf "$tmp"
else
  echo "tmux is missing: the tag's reach is not shown (the list above is still checked)"
fi

[ $fail = 0 ] && echo "ok: no /dev/shm entry with tag $tag was left by the suite"
exit $fail
