-- frag.lua - pitfall 6 (lab 9): many small allocations and frees, then a
-- larger one fails although more than enough memory is free in total.
-- A filler leaves 108 MiB of the GPU; twenty 5 MiB tensors take five
-- 20 MiB segments of the caching allocator; then half of them are freed
-- and 12 MiB are asked for. mgpu.args[1]:
--   "interleaved": free every other tensor - 50 MiB free, in 5 MiB holes;
--   "grouped":     free the first ten - the holes are neighbours and merge.
-- MGPU_ALLOC_CONF (the step's env) chooses the allocator's settings.
local MiB = 1 << 20
local pattern = mgpu.args[1] or "interleaved"
local free = mgpu.mem_info()
-- the filler: on the sim a phantom tensor, counted against the GPU like real
-- memory and never stored (80 GB would not fit the host); on a GPU real memory
local count = (free - 108 * MiB) // (2 * MiB) * (2 * MiB) // 4
local filler = mgpu.simulated and mgpu.phantom_tensor{count = count} or mgpu.tensor(count)
local small = {}
for i = 1, 20 do small[i] = mgpu.tensor(5 * MiB // 4) end
for i = 1, 20 do
  if (pattern == "interleaved" and i % 2 == 1) or (pattern == "grouped" and i <= 10) then
    small[i]:free()
    small[i] = nil
  end
end
local s = mgpu.memory_stats()
local ok, big = pcall(mgpu.tensor, 12 * MiB // 4)
mgpu.result{pattern = pattern, conf = mgpu.memory_conf(), ok = ok, error = (not ok) and tostring(big) or nil,
            reserved_unallocated_mib = s.reserved_unallocated / MiB, largest_free_block_mib = s.largest_free_block / MiB,
            segments = s.segments, num_ooms = mgpu.memory_stats().num_ooms}
if ok then big:free() end
for i = 1, 20 do if small[i] then small[i]:free() end end
filler:free()
