-- ring.lua - lab 10, exercises 1, 2 and 3: the collectives NCCL runs, built from
-- point-to-point calls.
--
-- Every function gets
--   comm     a communicator: comm:rank(), comm:size(), comm:send(t, peer),
--            comm:recv(t, peer); mgpu.group(function() ... end) runs the
--            sends and receives inside it together
--   chunks   this rank's buffer cut in comm:size() pieces, chunks[0] ..
--            chunks[n-1] (0-based, like ranks); when the buffer does not
--            divide evenly the first ones are one element longer
--   scratch  a tensor as long as the longest chunk; scratch:flat(0, len)
--            is its first len elements
-- mgpu.nn.add(a, b, y) computes y = a + b (y may be a).
-- Use send and recv only: the lab reads your communicator's flight record.
local ring = {}

-- Exercise 1 - ring reduce-scatter: afterwards chunks[r] on rank r holds the
-- sum over all ranks of their chunks[r]. n-1 steps; in each, every rank
-- sends one chunk to the next rank, (r + 1) % n, and adds the chunk it
-- receives from the previous rank into one of its own.
function ring.reduce_scatter(comm, chunks, scratch)
  local n, r = comm:size(), comm:rank()
  -- TODO
end

-- Exercise 2 - ring all-gather: rank r starts with its chunks[r] (reduced);
-- afterwards every rank holds every rank's chunk. n-1 steps.
function ring.all_gather(comm, chunks, scratch)
  local n, r = comm:size(), comm:rank()
  -- TODO
end

-- Exercise 2 - all-reduce from the two.
function ring.all_reduce(comm, chunks, scratch)
  -- TODO
end

-- Exercise 3 - all-reduce by recursive doubling, for small messages. buf is
-- the whole buffer (not chunks), scratch a tensor as long as buf. With n a
-- power of two: log2(n) steps; in step k rank r swaps its whole buffer with
-- rank r xor 2^k (Lua: r ~ d) and adds what it got. When n is not a power of
-- two, let p be the largest power of two below n: first each rank r >= p
-- hands its buffer to rank r - p, which adds it in; the p ranks double; then
-- each rank r < n - p hands the result back to rank r + p.
function ring.doubling(comm, buf, scratch)
  local n, r = comm:size(), comm:rank()
  -- TODO
end

return mgpu.import("coll.harness").run(ring, mgpu.args)
