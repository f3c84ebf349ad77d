-- ring_pipelined.lua - a ring all-reduce cut into slices, so that the add of
-- one slice (on the default stream) overlaps the transfer of the next slice
-- (on the communicator's stream): what NCCL gets by adding inside the kernel
-- that moves the data, done with two streams and an event per slice.
--
--   mgpulab spmd examples/spmd/ring_pipelined.lua --backend sim --ranks 4 [-- SLICES [nowait] [COUNT]]
--
-- Every access is ordered by an event, so the race detector finds nothing.
-- With `nowait`, rank 0's add of slice 1 in the first step does not wait for
-- that slice's receive: the detector names exactly that slice of scratch, and
-- on the sim the add reads NaN there.
--
-- Per step and slice j of a chunk:
--   comm stream:    wait added[j] (the slice to pass on is summed, scratch
--                   slice j was read), send it to the right, receive the
--                   left's slice j into scratch slice j, record got[j]
--   default stream: wait got[j], into slice j += scratch slice j, record
--                   added[j]
-- The comm stream goes on to slice j+1 while the default stream adds slice j.

local slices = tonumber(mgpu.args[1]) or 4
local nowait = mgpu.args[2] == "nowait"
local count = tonumber(mgpu.args[3]) or 4099   -- divides by no rank count: chunks differ by one

local comm = mgpu.comm()
local n, r = comm:size(), comm:rank()
local right, left = (r + 1) % n, (r - 1) % n
local cs, ds = comm:stream(), mgpu.default_stream()

-- Chunk k is [first[k], first[k] + len[k]) of the buffer; the first count % n
-- chunks are one element longer. Slice j of any chunk is its elements
-- [j * L, (j + 1) * L), so slice j of every chunk uses the same part of scratch.
local first, len, at = {}, {}, 0
for k = 0, n - 1 do
  len[k] = count // n + (k < count % n and 1 or 0)
  first[k] = at
  at = at + len[k]
end
local L = (len[0] + slices - 1) // slices

local buf = mgpu.tensor{count = count, name = "buf"}:fill{kind = "index", value = r + 1}
local ref = mgpu.tensor{count = count, name = "reference"}:fill{kind = "index", value = r + 1}
local scratch = mgpu.tensor{count = len[0], name = "scratch"}

-- Slice j of chunk k as a view of buf, and the part of scratch it is received
-- into; nil past the chunk's end.
local function part(k, j)
  local lo = j * L
  if lo >= len[k] then return nil end
  local m = math.min(L, len[k] - lo)
  return buf:flat(first[k] + lo, m), scratch:flat(lo, m)
end

local function event_on(stream)
  local e = mgpu.event()
  e:record(stream)
  return e
end

local function all_reduce()
  cs:wait(event_on(ds))                          -- buf was filled on the default stream
  local added = {}
  for s = 0, n - 2 do                            -- reduce-scatter
    local out_k, into_k = (r - s - 1) % n, (r - s - 2) % n
    for j = 0, slices - 1 do
      local out = part(out_k, j)
      local into, got = part(into_k, j)
      if not out then break end
      if added[j] then cs:wait(added[j]) end
      mgpu.group(function()
        comm:send(out, right, cs)
        comm:recv(got, left, cs)
      end)
      local received = event_on(cs)
      if not (nowait and r == 0 and s == 0 and j == 1) then ds:wait(received) end
      mgpu.nn.add(into, got, into)
      added[j] = event_on(ds)
    end
  end
  for s = 0, n - 2 do                            -- all-gather, on the comm stream
    for j = 0, slices - 1 do
      local out = part((r - s) % n, j)
      local into = part((r - s - 1) % n, j)
      if not out then break end
      if s == 0 and added[j] then cs:wait(added[j]) end   -- the last step's sums
      mgpu.group(function()
        comm:send(out, right, cs)
        comm:recv(into, left, cs)
      end)
    end
  end
  ds:wait(event_on(cs))
end

all_reduce()
comm:all_reduce(ref)
local wrong, maxerr, at_el = buf:compare(ref)
mgpu.result{rank = r, slices = slices, nowait = nowait, wrong = wrong, first_wrong = wrong > 0 and at_el or nil}
if not nowait then assert(wrong == 0, string.format("%d elements differ from comm:all_reduce, the first at %s", wrong, tostring(at_el))) end
