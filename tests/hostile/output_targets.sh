#!/usr/bin/env bash
# output_targets.sh - files a user names for output are replaced only when
# they are regular files: `spmd --trace /dev/full` turned the device node
# into a regular file (issue 16 item 1); bench refused nothing and wrote no
# trace (item 14).
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
echo 'print("rank", mgpu.rank)' >s.lua
echo keep >target
ln -s target link
mkfifo fifo
targets="link fifo"
# a device node of our own (root only): never the machine's /dev/null
if [ "$(id -u)" = 0 ] && mknod dev c 1 3 2>/dev/null; then targets="$targets dev"; fi
for t in $targets; do
  hrun out spmd s.lua --backend sim --ranks 2 --trace "$t"
  [ $rc -eq 2 ] && has out "refusing to write $t" && ok || { bad "--trace $t: exit $rc"; cat out; }
done
[ -L link ] && [ "$(cat target)" = keep ] && [ -p fifo ] && ok || bad "a --trace target was replaced"
[ ! -e dev ] || [ -c dev ] && ok || bad "the device node was replaced by a file"
# a good target still works, and is replaced when it is a regular file
hrun out spmd s.lua --backend sim --ranks 2 --trace good.json
[ $rc -eq 0 ] && grep -q traceEvents good.json && ok || { bad "--trace good.json: exit $rc"; cat out; }
# the other outputs a user names
hrun out topo --backend sim --machine dgx-h100 --xml link
[ $rc -ne 0 ] && [ -L link ] && [ "$(cat target)" = keep ] && ok || { bad "topo --xml wrote through a link"; cat out; }
hrun out topo --backend sim --machine dgx-h100 --xml topo.xml
[ $rc -eq 0 ] && grep -q "<system" topo.xml && ok || { bad "topo --xml topo.xml: exit $rc"; cat out; }
hrun out report --export link
[ $rc -ne 0 ] && [ -L link ] && [ "$(cat target)" = keep ] && ok || { bad "report --export wrote through a link"; cat out; }
# bench records no trace: it says so instead of ignoring --trace
hrun out bench all_reduce -b 8 -e 8 --backend sim --ranks 2 --trace b.json
[ $rc -eq 2 ] && has out "trace" && ok || { bad "bench --trace: exit $rc"; cat out; }
finish
