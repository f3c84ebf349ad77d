#!/usr/bin/env bash
# corrupt_state.sh - state and options that commands took in silence
# (issue 16 items 10, 13): a hint that could not be counted (the progress
# cannot be saved) exited 0; --timeout 0.1 was accepted and then reported a
# healthy rank as hung (ranks beat every 0.5 s); a progress file of 1 GiB
# (item 12).
. "$(dirname "$0")/hostile_lib.bash"
export MGPULAB_LABS=$src/tests/data/labs MGPULAB_CHECKS=$src/tests/data/labs/checks
hrun "$tmp/l" list
st=$XDG_STATE_HOME/mgpulab
[ -d "$st" ] && ok || { bad "no state directory"; cat "$tmp/l"; }
# the progress cannot be saved: its lock is a directory (works as root too,
# where a read-only directory would not stop the write)
mkdir -p "$st/progress.json.lock"
hrun "$tmp/h" hint 1 --step 2
[ $rc -ne 0 ] && has "$tmp/h" "first hint" && has "$tmp/h" "could not be counted" && ok ||
  { bad "hint with unsaveable progress: exit $rc"; cat "$tmp/h"; }
rmdir "$st/progress.json.lock"
hrun "$tmp/h2" hint 1 --step 2
[ $rc -eq 0 ] && ok || { bad "hint after the lock was fixed: exit $rc"; cat "$tmp/h2"; }

# a 1 GiB progress file (sparse: no disk) is not read (list took 29 s and
# 2.1 GB for one): it is moved aside whole, with its size named
rm -f "$st/progress.json"
truncate -s 1G "$st/progress.json"
hrun "$tmp/big" list
aside=$(ls "$st"/progress.json.damaged-* 2>/dev/null | head -1)
[ $rc -eq 0 ] && has "$tmp/big" "1073741824 bytes, over the limit of 16 MiB\); it was kept as" && [ -n "$aside" ] &&
  [ "$(stat -c %s "$aside")" = 1073741824 ] && [ ! -e "$st/progress.json" ] && ok ||
  { bad "a 1 GiB progress.json: exit $rc"; cat "$tmp/big"; ls -l "$st"; }
rm -f "$st"/progress.json.damaged-*

echo 'print("x")' >"$tmp/s.lua"
hrun "$tmp/t" spmd "$tmp/s.lua" --backend sim --ranks 2 --timeout 0.1
[ $rc -eq 2 ] && has "$tmp/t" "at least 2 s" && ok || { bad "--timeout 0.1: exit $rc"; cat "$tmp/t"; }
finish
