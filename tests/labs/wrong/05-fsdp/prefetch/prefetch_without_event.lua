-- wrong: prefetches with u:all_gather(stream) alone, without recording the
--        event that marks the end of the all-gather, so the next hook has no
--        event to wait for
-- verdict: to 'wait' (mgpu.event expected, got nil)
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
  if nxt and not nxt.full then nxt:all_gather(stream) end
end

function M.before_backward(units, i, stream)
  local u = units[i]
  if not u.full then gather(u, stream) end
  mgpu.default_stream():wait(u.ready)
  local nxt = units[i - 1]
  if nxt and not nxt.full then nxt:all_gather(stream) end
end

train.run{args = mgpu.args, hooks = M}
