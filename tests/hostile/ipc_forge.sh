#!/usr/bin/env bash
# ipc_forge.sh - a script that forges an IPC handle (issue 16 item 18): the
# handle's check word was an unkeyed FNV hash, so a script could rewrite a
# handle (pid, fd, range) and make a worker open /proc/PID/fd/N of another
# process. Handles now carry a MAC keyed with the run's token.
. "$(dirname "$0")/hostile_lib.bash"
cat >"$tmp/forge.lua" <<'LUA'
local x = mgpu.tensor(1024, "f32")
local h = mgpu.share(mgpu.rank == 0 and x:ipc_handle() or nil, 0)
if mgpu.rank == 1 then
  local hex = h:sub(10)
  local b = {}
  for i = 1, #hex, 2 do b[#b + 1] = tonumber(hex:sub(i, i + 1), 16) end
  b[25] = b[25] ~ 0x80                      -- change the range (the low byte of `bytes`)
  for i = 33, 36 do b[i] = 0 end            -- and seal it again as anyone can: FNV-1a
  local c = 2166136261
  for i = 1, #b do c = ((c ~ b[i]) * 16777619) & 0xffffffff end
  for i = 0, 3 do b[33 + i] = (c >> (8 * i)) & 0xff end
  local out = {}
  for i = 1, #b do out[i] = string.format("%02x", b[i]) end
  local ok, err = pcall(mgpu.ipc_open, "mgpu-ipc:" .. table.concat(out), "f32", 16)
  print(ok and "forged handle opened" or ("forged handle refused: " .. tostring(err)))
end
mgpu.share(nil, 1)
LUA
hrun "$tmp/o" spmd "$tmp/forge.lua" --backend sim --ranks 2
has "$tmp/o" "forged handle refused: .*not exported in this run" && ok || { bad "a forged IPC handle was not refused by its MAC"; cat "$tmp/o"; }
# the real handle still opens (examples/spmd/ipc.lua does the whole round)
hrun "$tmp/r" spmd "$src/examples/spmd/ipc.lua" --backend sim --ranks 2
[ $rc -eq 0 ] && has "$tmp/r" "checksum matches" && ok || { bad "a real handle: exit $rc"; cat "$tmp/r"; }
finish
