-- wrong: launches each full bucket's all-reduce on the default stream
--        instead of the communicator's: no race, and little is left after
--        backward, because each all-reduce now runs inside backward, in line
--        with its kernels - the step is no shorter than exchanging after it
-- verdict: your reducer took only
-- verdict: off the step
-- presets: dgx-h100,dgx-h200,pcie-4gpu,2x-dgx-h100
local train = mgpu.import("ddp.train")

local Reducer = {}
Reducer.__index = Reducer

function Reducer.new(params, comm, opts)
  local self = setmetatable({comm = comm, stream = comm:stream(), buckets = {}, where = {}}, Reducer)
  local cap = math.max(1, (opts.bucket_mb * 2 ^ 20) // 4)          -- f32 elements per bucket
  local b
  for i = #params, 1, -1 do                                        -- backward's order
    local p = params[i]
    local n = p.grad:count()
    if not b or (b.count > 0 and b.count + n > cap) then
      b = {params = {}, count = 0}
      self.buckets[#self.buckets + 1] = b
    end
    self.where[p] = {bucket = b, offset = b.count, count = n}
    b.params[#b.params + 1] = p
    b.count = b.count + n
  end
  for _, bk in ipairs(self.buckets) do
    bk.flat = opts.tensor(bk.count)
    bk.pending = #bk.params
  end
  return self
end

function Reducer:ready(p)
  local w = self.where[p]
  local b = w.bucket
  mgpu.copy(b.flat:flat(w.offset, w.count), p.grad:view{w.count})
  b.pending = b.pending - 1
  if b.pending == 0 then                                           -- the bucket is full: send it
    self.comm:all_reduce(b.flat, "avg", mgpu.default_stream())
    b.done = mgpu.event()
    b.done:record(mgpu.default_stream())
  end
end

function Reducer:wait()
  for _, b in ipairs(self.buckets) do
    mgpu.default_stream():wait(b.done)
    for _, p in ipairs(b.params) do
      local w = self.where[p]
      mgpu.copy(p.grad:view{w.count}, b.flat:flat(w.offset, w.count))
    end
    b.pending = #b.params
  end
end

train.run{mode = "ddp", reducer = Reducer, args = mgpu.args}
