-- wrong: waits for a unit's all-gather only when the hook itself gathered
--        it; a unit prefetched by the hook before is used without waiting for
--        its event, while its all-gather may still be running
-- verdict: could start before
-- verdict: stream-ordering race
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
  if not u.full then
    gather(u, stream)
    mgpu.default_stream():wait(u.ready)
  end
  local nxt = units[i + 1]
  if nxt and not nxt.full then gather(nxt, stream) end
end

function M.before_backward(units, i, stream)
  local u = units[i]
  if not u.full then
    gather(u, stream)
    mgpu.default_stream():wait(u.ready)
  end
  local nxt = units[i - 1]
  if nxt and not nxt.full then gather(nxt, stream) end
end

train.run{args = mgpu.args, hooks = M}
