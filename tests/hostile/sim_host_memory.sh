#!/usr/bin/env bash
# sim_host_memory.sh - real tensors on the sim are host memory (issue 16
# item 7): with --mem-limit 1M two ranks held 3 GiB each, capped only by
# the modelled GPU's 80 GB. Now --mem-limit bounds what a rank's buffers
# hold, a tensor over half the host's available memory is refused (bench's
# check), and phantom tensors, which are not memory, stay free.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
cat >big.lua <<'LUA'
local t <close> = mgpu.tensor(tonumber(mgpu.args[1]) // 4)
t:fill(1)
print("held", t:count() * 4)
LUA
hrun out spmd big.lua --backend sim --ranks 2 --mem-limit 1M -- 3221225472
[ $rc -eq 1 ] && has out "cannot allocate 3.00 GiB of device memory on the sim" &&
  has out "--mem-limit allows this rank 1.00 MiB of host memory" && ! has out "held" && ok ||
  { bad "3 GiB under --mem-limit 1M: exit $rc"; cat out; }
# what fits the limit still runs
hrun out spmd big.lua --backend sim --ranks 2 --mem-limit 64M -- 16777216
[ $rc -eq 0 ] && [ "$(grep -c 'held.16777216' out)" = 2 ] && ok || { bad "16 MiB under --mem-limit 64M: exit $rc"; cat out; }
# phantom tensors are not host memory: 8 GiB of them under a 1M limit
cat >phantom.lua <<'LUA'
local t <close> = mgpu.tensor{count = (8 << 30) // 4, phantom = true}
mgpu.comm():all_reduce(t, t)
print("phantom", t:count())
LUA
hrun out spmd phantom.lua --backend sim --ranks 2 --mem-limit 1M
[ $rc -eq 0 ] && [ "$(grep -c 'phantom.2147483648' out)" = 2 ] && ok || { bad "8 GiB phantom under --mem-limit 1M: exit $rc"; cat out; }
# without a limit: three quarters of what the host has available is more
# than one buffer may take (the machine is chosen so the GPU could hold it)
kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
want=$(( kb * 1024 / 4 * 3 / 4 * 4 ))
if [ "$want" -lt $((130 << 30)) ]; then
  hrun out spmd big.lua --backend sim --machine dgx-h200 --ranks 1 -- "$want"
  [ $rc -eq 1 ] && has out "of host memory available and one buffer may take half of it" && ! has out "held" && ok ||
    { bad "a tensor of 3/4 of the available host memory: exit $rc"; cat out; }
else
  echo "(skipped the available-memory case: this host has more than an H200 holds)"
fi
finish
