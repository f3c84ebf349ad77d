-- ipc.lua - CUDA IPC between rank processes, and the handle-lifetime pitfall.
--
-- Rank 0 allocates device memory and exports it (cudaIpcGetMemHandle); the
-- handle is a string that mgpu.share hands to every rank; the other ranks
-- open it (cudaIpcOpenMemHandle) and read rank 0's memory directly, with no
-- copy through the host. Rank 1 writes into it and rank 0 sees the write.
--
-- The pitfall: a handle is only as good as the exporter's buffer. Once rank 0
-- frees the buffer (or exits), the handle is stale: opening it fails, and an
-- importer that still holds a mapping is reading memory nobody owns.
--
--   mgpulab spmd examples/spmd/ipc.lua --backend sim --ranks 2
--   mgpulab spmd examples/spmd/ipc.lua --ranks 2 -- 1048576    (elements)

local n = math.tointeger(tonumber(mgpu.args[1] or "")) or (1 << 20)
assert(mgpu.world >= 2, "run with --ranks 2 or more: rank 0 exports, the others open")
local comm = mgpu.comm()
local exporter = mgpu.rank == 0

-- 1. Export and share the handle -------------------------------------------
local x, handle, sum
if exporter then
  x = mgpu.tensor(n):fill{kind = "random", seed = 42}
  handle, sum = x:ipc_handle(), tostring(x:checksum())
  local i = mgpu.pointer_info(x)
  mgpu.log(string.format("exported %d floats on GPU %d at %s (%s memory, UVA)", n, i.device, i.address, i.kind))
end
handle = mgpu.share(handle, 0)            -- every rank gets rank 0's handle
sum = math.tointeger(tonumber(mgpu.share(sum, 0)))

-- 2. Open it and read rank 0's memory --------------------------------------
local y, seen
if not exporter then
  y = mgpu.ipc_open(handle, "f32", n)
  seen = y:checksum()
  local i = mgpu.pointer_info(y)
  mgpu.log(string.format("opened rank 0's buffer: memory of GPU %d mapped at %s; checksum %s",
                         i.device, i.address, seen == sum and "matches" or "DIFFERS"))
  assert(seen == sum, "the opened memory does not hold what rank 0 wrote")
end
comm:barrier()                            -- every importer has read before rank 1 writes
if mgpu.rank == 1 then
  y:fill{kind = "const", value = 3}       -- written here, seen on rank 0
  mgpu.synchronize()
end
comm:barrier()
local wrote_back = true
if exporter then
  wrote_back = x:get(0) == 3 and x:get(n - 1) == 3
  mgpu.log("rank 1's write through the handle is " .. (wrote_back and "visible" or "NOT visible") .. " in rank 0's buffer")
  assert(wrote_back, "rank 1 wrote through the handle, but rank 0 does not see it")
end

-- 3. The right order: importers close, then the exporter frees ---------------
if y then y:ipc_close() end
comm:barrier()
if exporter then x:free() end
comm:barrier()

-- 4. Pitfall: the handle outlived its buffer --------------------------------
local stale = "n/a"
if not exporter then
  local ok, err = pcall(mgpu.ipc_open, handle, "f32", n)
  if ok then
    stale = "opened"   -- what a GPU's driver may do: then you read whatever the memory holds now
    mgpu.log(string.format("the stale handle opened anyway: checksum %s the old data",
                           err:checksum() == sum and "still equals" or "no longer equals"))
    err:ipc_close()
  else
    stale = "refused"
    mgpu.log("opening the stale handle failed: " .. err)
  end
end

-- 5. Pitfall: the exporter frees while an importer still reads ---------------
local z, zh = nil, nil
if exporter then z = mgpu.tensor(n):fill(1); zh = z:ipc_handle() end
zh = mgpu.share(zh, 0)
local w = not exporter and mgpu.ipc_open(zh, "f32", n) or nil
comm:barrier()
if exporter then z:free() end              -- too early: rank 1 still uses it
comm:barrier()
local after = "n/a"
if w then
  local ok, err = pcall(w.checksum, w)
  after = ok and "read" or "refused"
  mgpu.log(ok and "reading after the exporter freed it still returned data (stale or foreign)"
              or ("reading after the exporter freed it: " .. err))
  w:ipc_close()
end
comm:barrier()
return {checksum_ok = exporter or seen == sum, wrote_back = wrote_back, stale_open = stale, use_after_free = after}
