-- wrong: queues the next unit's all-gather on the default stream (the one
--        the layers compute on) instead of the communicator's stream, so it
--        runs between the layers' kernels, not beside them
-- verdict: on a stream other than the hook's
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
  if nxt and not nxt.full then gather(nxt, mgpu.default_stream()) end
end

function M.before_backward(units, i, stream)
  local u = units[i]
  if not u.full then gather(u, stream) end
  mgpu.default_stream():wait(u.ready)
  local nxt = units[i - 1]
  if nxt and not nxt.full then gather(nxt, mgpu.default_stream()) end
end

train.run{args = mgpu.args, hooks = M}
