-- ipc_lifetime.lua - pitfall 7 (lab 9; first seen in lab 3): rank 0 shares
-- a buffer by CUDA IPC, rank 1 maps and reads it. mgpu.args[1]:
--   "bug": rank 0 frees the buffer right after sharing the handle - the
--          handle outlives the memory it names (dangling);
--   "fix": rank 1 reads and closes its mapping, a barrier, then rank 0 frees.
local mode = mgpu.args[1] or "bug"
local n = 1 << 20
local comm = mgpu.comm()
local x = mgpu.rank == 0 and mgpu.tensor(n):fill{kind = "random", seed = 7} or nil
local h = mgpu.share(mgpu.rank == 0 and x:ipc_handle() or nil, 0)
local want = mgpu.share(mgpu.rank == 0 and tostring(x:checksum()) or nil, 0)
if mode == "bug" and mgpu.rank == 0 then x:free() end     -- BUG: freed while rank 1 still needs it
if mode == "bug" then comm:barrier() end
local r = { want = want }
if mgpu.rank == 1 then
  local ok, y = pcall(mgpu.ipc_open, h, "f32", n)
  r.opened = ok
  if ok then
    local fine, sum = pcall(function() return y:checksum() end)
    r.read_ok, r.seen = fine, fine and tostring(sum) or nil
    r.error = (not fine) and tostring(sum) or nil
    pcall(function() y:ipc_close() end)                  -- close before the owner frees
  else
    r.error = tostring(y)
  end
end
if mode == "fix" then
  comm:barrier()                                        -- every importer has closed
  if mgpu.rank == 0 then x:free() end
end
mgpu.result(r)
