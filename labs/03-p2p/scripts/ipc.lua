-- ipc.lua - CUDA IPC between two processes, in the right order:
-- rank 0 exports its buffer, rank 1 opens the handle, reads and writes the
-- memory, CLOSES it, and only then (after a barrier) rank 0 frees.
local n = 1 << 20
local comm = mgpu.comm()
local x = nil
local r = {}
if mgpu.rank == 0 then
  x = mgpu.tensor(n):fill{kind = "random", seed = 5}
  r.seen = x:checksum()                                 -- the owner's view, before anyone else touches it
end
-- cudaIpcGetMemHandle on the owner; the handle travels as a string
local h = mgpu.share(mgpu.rank == 0 and x:ipc_handle() or nil, 0)
r.handle_chars = #h
if mgpu.rank == 1 then
  local y = mgpu.ipc_open(h, "f32", n)                 -- cudaIpcOpenMemHandle
  r.seen = y:checksum()                                 -- rank 0's data, read in place
  y:fill{kind = "const", value = 7}                     -- write into rank 0's memory
  mgpu.synchronize()
  y:ipc_close()                                         -- cudaIpcCloseMemHandle, first
end
comm:barrier()                                          -- every importer has closed
if mgpu.rank == 0 then
  r.after = x:checksum()                                -- rank 1's write, seen by the owner
  local seven <close> = mgpu.tensor(n):fill{kind = "const", value = 7}
  r.sevens = seven:checksum()
  x:free()                                              -- now the handle may die
end
mgpu.result(r)
