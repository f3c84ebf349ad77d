#!/usr/bin/env bash
# rank_limit.sh - more ranks than the sim's communicator holds (issue 34):
# 1,024 ranks were refused ("the sim communicator supports up to 512") only
# after every worker had started, 34 s later. mgpu_rt_run, which every
# launcher goes through (spmd, bench, a lab's runs), refuses them before
# starting any; spmd asks before its banner.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
say="--ranks 1024: the sim runs at most 512 ranks"
echo 'print("rank " .. mgpu.rank .. " ran")' >hello.lua
hrun out spmd hello.lua --backend sim --ranks 1024
[ $rc -eq 1 ] && has out "$say" && ! has out " ran$" && ok || { bad "spmd --ranks 1024: exit $rc"; tail -5 out; }
# the refusal comes before the banner (second pass): "1024 ranks" was
# printed just above it, and a fault on a missing rank the same
! has out "^# mgpulab spmd" && ok || { bad "spmd --ranks 1024 printed its banner first"; cat out; }
hrun out spmd hello.lua --backend sim --ranks 2 --fault crash:9
[ $rc -eq 1 ] && has out "crash:9 names rank 9" && ! has out "^# mgpulab spmd" && ok ||
  { bad "spmd --fault crash:9 on 2 ranks: exit $rc, or its banner first"; cat out; }
hrun out bench all_reduce --backend sim --ranks 1024 -b 1K -e 1K
[ $rc -ne 0 ] && [ $rc -ne 137 ] && has out "$say" && ok || { bad "bench --ranks 1024: exit $rc"; tail -5 out; }
export MGPULAB_LABS=$src/labs
unset MGPULAB_CHECKS
hrun out run 0 --step hello --backend sim --ranks 1024
[ $rc -ne 137 ] && has out "$say" && ok || { bad "a lab step on 1024 ranks: exit $rc"; tail -5 out; }
# the limit itself still runs
hrun out spmd hello.lua --backend sim --ranks 3
[ $rc -eq 0 ] && has out "rank 2 ran" && ok || { bad "spmd --ranks 3: exit $rc"; tail -5 out; }
finish
