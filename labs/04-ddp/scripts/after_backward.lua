-- after_backward.lua - lab 4 step 3's yardstick: every gradient packed
-- into one flat tensor after backward and averaged in ONE all-reduce on the
-- default stream, then copied back. It exchanges what a reducer exchanges,
-- in as few calls as any, with nothing overlapped: a reducer's step against
-- this one's is what running the all-reduce during backward bought.
-- mgpu.args: the harness's (steps, global batch, model).
local train = mgpu.import("ddp.train")

local Flat = {}
Flat.__index = Flat

function Flat.new(params, comm, opts)
  local n = 0
  for _, p in ipairs(params) do n = n + p.grad:count() end
  return setmetatable({params = params, comm = comm, flat = opts.tensor(n):name("all gradients, after backward")}, Flat)
end

function Flat:ready() end

function Flat:wait()
  local off = 0
  for _, p in ipairs(self.params) do
    local c = p.grad:count()
    mgpu.copy(self.flat:flat(off, c), p.grad:view{c})
    off = off + c
  end
  self.comm:all_reduce(self.flat, "avg")
  off = 0
  for _, p in ipairs(self.params) do
    local c = p.grad:count()
    mgpu.copy(p.grad:view{c}, self.flat:flat(off, c))
    off = off + c
  end
end

train.run{mode = "ddp", reducer = Flat, args = mgpu.args}
