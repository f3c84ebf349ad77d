-- ring.lua - lab 10, exercises 1 and 2: the collectives NCCL runs, built from
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

return mgpu.import("coll.harness").run(ring, mgpu.args)
