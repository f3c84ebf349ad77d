-- wrong: the backward hook prefetches units[i + 1], copied from the forward:
--        that unit's backward has already run, so its all-gather is wasted,
--        and the unit the backward needs next is still gathered on demand
-- verdict: whose backward has already run
local train = mgpu.import("fsdp.train")

local M = {}

-- Queue u's all-gather on `stream` and remember the event that marks its end.
local function gather(u, stream)
  u:all_gather(stream)
  u.ready = mgpu.event()
  u.ready:record(stream)
end

function M.before_forward(units, i, stream)
  local u = units[i]
  if not u.full then gather(u, stream) end
  mgpu.default_stream():wait(u.ready)
  local nxt = units[i + 1]
  if nxt and not nxt.full then gather(nxt, stream) end
end

function M.before_backward(units, i, stream)
  local u = units[i]
  if not u.full then gather(u, stream) end
  mgpu.default_stream():wait(u.ready)
  local nxt = units[i + 1]
  if nxt and not nxt.full then gather(nxt, stream) end
end

train.run{args = mgpu.args, hooks = M}
