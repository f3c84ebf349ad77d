-- ipc_stale.lua - the note's pitfall: the handle outlives the buffer.
-- Rank 0 frees its buffer right after handing out the handle; rank 1 then
-- opens the handle and reads. On the sim this is detected ("stale"); on a
-- GPU, CUDA may refuse to open it - or map it and return old or foreign data
-- without any error.
local n = 1 << 20
local comm = mgpu.comm()
local x = nil
if mgpu.rank == 0 then x = mgpu.tensor(n):fill{kind = "random", seed = 5} end
local h = mgpu.share(mgpu.rank == 0 and x:ipc_handle() or nil, 0)
local want = mgpu.rank == 0 and x:checksum() or nil
if mgpu.rank == 0 then x:free() end                     -- BUG: freed while rank 1 still needs it
comm:barrier()
local r = {}
if mgpu.rank == 1 then
  local ok, y = pcall(mgpu.ipc_open, h, "f32", n)
  r.opened = ok
  if ok then
    local fine, sum = pcall(function() return y:checksum() end)
    r.read_ok, r.seen = fine, fine and sum or nil
    r.error = (not fine) and tostring(sum) or nil
    pcall(function() y:ipc_close() end)
  else
    r.error = tostring(y)
  end
end
r.want = mgpu.share(mgpu.rank == 0 and tostring(want) or nil, 0)
mgpu.result(r)
