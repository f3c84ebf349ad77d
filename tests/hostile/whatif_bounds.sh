#!/usr/bin/env bash
# whatif_bounds.sh - the what-if from a script and from the command line
# (issue 34): 10^7 micro-batches took 2.1 GB past `--mem-limit 64M` and 10^8
# ran for minutes; a pipeline of 2^20 stages took its memory outside the
# sandbox's cap; `mgpu.whatif{machine = PATH}` let a script read host files
# through the topology parser's errors. Each must be a clear error now:
# the schedule's size bounded, its memory counted against the cap, and a
# script limited to the sim presets. Second pass: the binding's integers go
# through lm_int_in, so 2^40 is "out of range" as in every other binding.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
spmd() { hrun out spmd "$1" --backend sim --ranks 1 --mem-limit 64M --time-limit 60; }

# a bound on the schedule, the same words from a script and from the CLI
echo 'mgpu.whatif{micro_batches = 10000000}' >many.lua
spmd many.lua
[ $rc -eq 1 ] && has out "micro-batches 10000000 x --pp 4 = 40000000 micro-batch passes to simulate; the what-if stops at" &&
  ok || { bad "10^7 micro-batches in a script: exit $rc"; cat out; }
# (exit 1 or 2: cmd_whatif counts a layout the model cannot take as a bad option)
hrun out whatif --micro-batches 100000000
[ $rc -ne 0 ] && [ $rc -ne 137 ] && has out "micro-batches 100000000 x --pp 4 = .* the what-if stops at" && ok ||
  { bad "whatif --micro-batches 10^8: exit $rc"; cat out; }
hrun out whatif --global-batch 1073741824 --dp 8 --micro-batch-size 1
[ $rc -ne 0 ] && [ $rc -ne 137 ] && has out "global-batch 1073741824 makes 134217728 micro-batches" && ok ||
  { bad "whatif --global-batch 2^30: exit $rc"; cat out; }

# an integer past an int is out of range in the words of every other
# binding (lm_int_in), not "must be an integer, got 1099511627776.0"
cat >wide.lua <<'LUA'
print("wide", pcall(mgpu.whatif, {micro_batches = 2^40}))
print("negative", pcall(mgpu.whatif, {layers = -1}))
print("fraction", pcall(mgpu.whatif, {dp = 1.5}))
LUA
spmd wide.lua
has out "wide	false	.*mgpu.whatif: micro_batches 1099511627776 is out of range \\(0\\.\\.2147483647\\)" && ok ||
  { bad "micro_batches = 2^40 is not out of range"; cat out; }
has out "negative	false	.*mgpu.whatif: layers -1 is out of range" && ok || { bad "layers = -1 is not out of range"; cat out; }
has out "fraction	false	.*mgpu.whatif: option 'dp' must be an integer, got 1.5" && ok || { bad "dp = 1.5"; cat out; }
! has out "got 1099511627776" && ok || { bad "2^40 is still called a non-integer"; cat out; }

# under the bound, a large schedule runs in little memory: its programme
# is made as it runs, never stored (peak RSS well under the 2 GB of before)
echo 'local r = mgpu.whatif{micro_batches = 4000000}
print("bubble", r.bubble, r.micro_batches)' >large.lua
/usr/bin/time -f "maxrss %M" -o rss timeout -s KILL 120 "$bin" spmd large.lua --backend sim --ranks 1 --mem-limit 64M \
  --time-limit 60 >out 2>&1 </dev/null; rc=$?
kb=$(awk '/maxrss/ {print $2}' rss 2>/dev/null)
[ $rc -eq 0 ] && has out "bubble.*4000000" && [ "${kb:-999999999}" -lt 400000 ] && ok ||
  { bad "4x10^6 micro-batches under --mem-limit 64M: exit $rc, max RSS ${kb:-?} KiB"; cat out; }

# the schedule's memory counts against the cap: 2^20 stages need more
# than 64M leaves, and the error says which cap
echo 'mgpu.whatif{dp = 1, tp = 1, pp = 1048576, layers = 1048576, micro_batches = 1}' >stages.lua
spmd stages.lua
[ $rc -eq 1 ] && has out "needs more than the [0-9]+ KiB of memory it may use \(what the script's memory cap leaves" &&
  ok || { bad "2^20 stages under --mem-limit 64M: exit $rc"; cat out; }

# machine: presets only. A file's contents never reach the message, and a
# file that exists reads the same as one that does not.
printf 'SECRET-TOKEN-4711 first line\n' >secret.xml
printf 'SECRET-TOKEN-4711\n' >secret
for m in "$tmp/secret.xml" "$tmp/secret" "$tmp/missing.xml" /etc/passwd; do
  printf 'print(pcall(mgpu.whatif, {machine = "%s"}))\n' "$m" >probe.lua
  spmd probe.lua
  [ $rc -eq 0 ] && has out "false.*machine names a file; a script cannot read topology files" &&
    ! has out "SECRET|root:|No such file|cannot open" && ok || { bad "machine = $m: exit $rc"; cat out; }
done
printf 'print(pcall(mgpu.whatif, {machine = "no-such\\27[2J"}))\n' >esc.lua
spmd esc.lua
[ $rc -eq 0 ] && has out "machine \(that name\) is not a sim preset; the presets: dgx-h100" && ok ||
  { bad "machine with an escape sequence: exit $rc"; cat out; }
echo 'print(mgpu.whatif{machine = "pcie-4gpu", dp = 2, tp = 2, pp = 1, micro_batches = 4}.machine)' >preset.lua
spmd preset.lua
[ $rc -eq 0 ] && has out "pcie-4gpu" && ok || { bad "a preset machine: exit $rc"; cat out; }
finish
