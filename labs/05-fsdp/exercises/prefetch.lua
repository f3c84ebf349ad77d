-- prefetch.lua - lab 5, step 3: prefetch the next unit's parameters.
--
-- FSDP calls these hooks before each unit runs on the default stream:
--   before_forward(units, i, stream)   forward,  i = 1 .. #units
--   before_backward(units, i, stream)  backward, i = #units - 1 .. 1 (the
--                                      head's parameters stay gathered
--                                      from its forward)
-- units[i] is a unit: u.full is its gathered flat parameters (nil while
-- only the shard is here), u:all_gather(stream) allocates u.full and
-- queues the all-gather on `stream` (the communicator's), after whatever
-- the default stream has queued so far. When a hook returns, the unit's
-- compute is queued on the default stream: it may read u.full only after
-- the all-gather has finished on `stream` - an event recorded on `stream`
-- and waited for by the default stream.
--
-- As written, each hook gathers the unit it is called for and waits for
-- it: nothing else runs on the GPU during the all-gather (the timeline
-- shows the gap). Make each hook also issue the NEXT unit's all-gather
-- (forward: units[i + 1]; backward: units[i - 1]) on `stream` before it
-- returns - before the current unit's compute is queued - so the two
-- overlap. A unit gathered ahead must not be gathered twice.
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
  -- TODO: prefetch units[i + 1]
end

function M.before_backward(units, i, stream)
  local u = units[i]
  if not u.full then gather(u, stream) end
  mgpu.default_stream():wait(u.ready)
  -- TODO: prefetch units[i - 1]
end

train.run{args = mgpu.args, hooks = M}
