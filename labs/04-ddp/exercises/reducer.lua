-- reducer.lua - lab 4, step 3: write DDP's gradient reducer, one level below
-- PyTorch.
--
-- backward calls reducer:ready(p) the moment p.grad is final (last layer
-- first); the optimizer step comes after reducer:wait(). p is
-- {name =, value = tensor, grad = tensor}. Your reducer must
--   1. pack the gradients into buckets of at most opts.bucket_mb MiB (f32:
--      4 bytes an element), in the order backward produces them - the
--      parameters in reverse order. One flat tensor per bucket
--      (opts.tensor(count): f32, like the model's own tensors);
--      t:flat(first, n) is a view of part of it and p.grad:view{n} the
--      gradient as a flat view; mgpu.copy(dst, src) copies.
--   2. when a bucket's last gradient is ready, launch its all-reduce
--      (comm:all_reduce(flat, "avg", stream)) on the communicator's stream
--      (comm:stream()) - but only after the copies into the bucket, which
--      run on the default stream, are done (an event).
--   3. in wait(): make the default stream wait until every bucket is
--      reduced (an event per bucket), copy the averages back into p.grad,
--      and get ready for the next step.
-- Until then this reducer does nothing: every rank trains on its own shard.
local train = mgpu.import("ddp.train")

local Reducer = {}
Reducer.__index = Reducer

function Reducer.new(params, comm, opts)
  local self = setmetatable({comm = comm, stream = comm:stream(), buckets = {}, where = {}}, Reducer)
  -- TODO: build the buckets (reverse order, at most opts.bucket_mb MiB each)
  return self
end

function Reducer:ready(p)
  -- TODO: copy p.grad into its bucket; when the bucket is complete, all-reduce it
end

function Reducer:wait()
  -- TODO: wait for every bucket, copy the averaged gradients back
end

train.run{mode = "ddp", reducer = Reducer, args = mgpu.args}
