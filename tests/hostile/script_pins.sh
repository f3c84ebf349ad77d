#!/usr/bin/env bash
# script_pins.sh - memory errors a sandboxed script reached (issue 34, high):
# a tensor freed inside mgpu.group before the group's end ran its send
# (heap-use-after-free, SIGSEGV in release), a communicator's stream used
# after the communicator was destroyed, an options table whose __index frees
# a view's tensor, destroys a stream already fetched or returns a temporary
# stream the collector takes, and mgpu.copy with count = 0 to a tensor freed
# in __index (NULL dereference). Every case must end in the script with a
# clear error or the right numbers, the run must finish, and the memory a
# call held must go back once the call and the group are over.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"

# 1. a learner frees the send buffer inside the group: the group's send
#    still reads it (the free waits for the group's end)
cat >group_free.lua <<'LUA'
local comm = mgpu.comm()
local peer = (mgpu.rank + 1) % mgpu.world
local base = mgpu.memory_stats().allocated
local t = mgpu.tensor(1 << 16):fill(mgpu.rank + 1)
local r = mgpu.tensor(1 << 16)
mgpu.group(function()
  comm:send(t, peer)
  comm:recv(r, peer)
  t:free()
  assert(not pcall(t.get, t, 0), "a freed tensor still reads")
end)
print("group_free got", r:get(0), r:get((1 << 16) - 1))
r:free()
print("group_free allocated after", mgpu.memory_stats().allocated - base)
LUA
hrun out spmd group_free.lua --backend sim --ranks 2
[ $rc -eq 0 ] && has out "\[rank 0\] group_free got	2.0	2.0" && has out "\[rank 1\] group_free got	1.0	1.0" && ok ||
  { bad "t:free() inside mgpu.group: exit $rc"; cat out; }
[ "$(grep -c 'group_free allocated after	0$' out)" = 2 ] && ok || { bad "the group kept the freed tensor's memory"; cat out; }

# 2. a communicator's stream outlives the communicator: it stays a stream
cat >comm_stream.lua <<'LUA'
local sub = mgpu.comm():split(0, mgpu.rank, "sub")
local s = sub:stream()
sub:destroy()
local t = mgpu.tensor(64)
t:fill{stream = s, value = 3}
s:synchronize()
print("comm_stream got", t:get(0))
LUA
hrun out spmd comm_stream.lua --backend sim --ranks 2
[ $rc -eq 0 ] && [ "$(grep -c 'comm_stream got	3.0' out)" = 2 ] && ok || { bad "a destroyed communicator's stream: exit $rc"; cat out; }

# 2b. inside a group: destroying a communicator a grouped call uses is
#     refused; closing it (<close>) waits for the group's end
cat >comm_group.lua <<'LUA'
local world = mgpu.comm()
local peer = (mgpu.rank + 1) % mgpu.world
local t, r = mgpu.tensor(256):fill(5), mgpu.tensor(256)
local sub = world:split(0, mgpu.rank, "sub")
local ok, err = pcall(mgpu.group, function()
  sub:send(t, peer); sub:recv(r, peer)
  sub:destroy()
end)
print("comm_group destroy", ok, err)
print("comm_group got", r:get(0))
mgpu.group(function()
  local c <close> = world:split(0, mgpu.rank, "closed")
  c:send(t, peer); c:recv(r, peer)
end)
print("comm_group closed", r:get(255))
LUA
hrun out spmd comm_group.lua --backend sim --ranks 2
[ $rc -eq 0 ] && has out "comm_group destroy	false	.*in use by a call or an mgpu.group" && has out "comm_group got	5.0" &&
  has out "comm_group closed	5.0" && ok || { bad "a communicator destroyed inside mgpu.group: exit $rc"; cat out; }

# 3-5. options whose __index runs the script after the arguments were checked
cat >index.lua <<'LUA'
local function opts(on, f, v) return setmetatable({}, {__index = function(_, k) if k == on then f() return v end end}) end
local base = mgpu.tensor(1024):fill(1)
local view = base:view{32, 32}
print("fill", pcall(view.fill, view, opts("value", function() base:free() end, 2)))
local a = mgpu.tensor(64):fill(1)
local b, c = mgpu.tensor{shape = {8, 8}}:fill(1), mgpu.tensor{shape = {8, 8}}
print("gemm", pcall(mgpu.nn.gemm, a:view{8, 8}, b, c, opts("alpha", function() a:free() end, 1)))
local x, y = mgpu.tensor(64):fill(1), mgpu.tensor(64)
print("copy", pcall(mgpu.copy, y, x:view{64}, opts("count", function() x:free() end)))
local s = mgpu.stream()
print("stream", pcall(mgpu.nn.gemm, b, b, c, setmetatable({}, {__index = function(_, k)
  if k == "stream" then return s end
  if k == "alpha" then s:destroy() end end})))
local x2, y2 = mgpu.tensor(64):fill(4), mgpu.tensor(64)
mgpu.synchronize()
local ok = pcall(mgpu.copy, y2, x2, setmetatable({}, {__index = function(_, k)
  if k == "stream" then return mgpu.stream() end
  if k == "count" then collectgarbage(); collectgarbage() end end}))
mgpu.synchronize()
print("temporary stream", ok, y2:get(63))
print("count0", pcall(mgpu.copy, y, b:view{64}, opts("count", function() y:free() end, 0)))
LUA
hrun out spmd index.lua --backend sim --ranks 1
[ $rc -eq 0 ] && ok || { bad "options with __index: exit $rc"; cat out; }
has out "fill	false	.*this view's tensor was freed" && ok || { bad "fill: the view's tensor freed in __index"; cat out; }
has out "gemm	false	.*this view's tensor was freed" && ok || { bad "gemm: the view's tensor freed in __index"; cat out; }
has out "copy	false	.*this view's tensor was freed" && ok || { bad "copy: the view's tensor freed in __index"; cat out; }
has out "stream	false	.*this stream was destroyed" && ok || { bad "gemm: the stream destroyed in __index"; cat out; }
has out "temporary stream	true	4.0" && ok || { bad "copy: a temporary stream collected in the call"; cat out; }
has out "count0	false	.*this tensor was freed" && ok || { bad "copy count = 0 to a tensor freed in __index"; cat out; }

# what a call holds goes back when it raises, also in a coroutine that is
# never closed (its frame goes with the coroutine)
cat >release.lua <<'LUA'
local base = mgpu.memory_stats().allocated
local a, b = mgpu.tensor(1 << 16), mgpu.tensor(1 << 16, "i32")
print("raise", pcall(mgpu.copy, a, b))
local co = coroutine.create(function() mgpu.copy(a, b) end)
print("coroutine", coroutine.resume(co))
a:free(); b:free(); co = nil
collectgarbage(); collectgarbage()
print("release left", mgpu.memory_stats().allocated - base)
local whole = mgpu.tensor(64)
local part = whole:view{8, 8}
whole:free()
print("view of freed", tostring(part), pcall(part.count, part))
local o = mgpu.ipc_open and mgpu.tensor(64)
print("ipc_close view", pcall(o:view{8, 8}.ipc_close, o:view{8, 8}))
LUA
hrun out spmd release.lua --backend sim --ranks 1
[ $rc -eq 0 ] && has out "raise	false	.*one type" && has out "coroutine	false	.*one type" && has out "release left	0$" && ok ||
  { bad "a raising call kept its tensors: exit $rc"; cat out; }
has out "ipc_close view	false	.*this is a view" && ok || { bad "ipc_close on a view"; cat out; }
has out "view of freed	tensor \(freed\)	false	.*view's tensor was freed" && ok || { bad "tostring of a view of a freed tensor"; cat out; }
finish
