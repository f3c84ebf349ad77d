-- gpipe.lua - lab 11, step 1: GPipe. Every micro-batch goes forward through
-- the four stages, then every one comes back.
--
-- This rank is one stage of the decoder (labs/lib/nn/pipe.lua):
--   st.stage, st.stages, st.m      this stage (0..3), 4, the micro-batches
--   st.prev, st.next               the neighbours' ranks, nil at the ends
--   st.comm                        the world communicator: comm:send(t, peer),
--                                  comm:recv(t, peer)
--   st:buffer()                    a new tensor to receive into
--   st:forward(i, x) -> y          x: what the previous stage sent (nil on the
--                                  first); y: what to send on (nil on the last)
--   st:backward(i, dy) -> dx       dy: the gradient the next stage sent back
--                                  (nil on the last); dx: what to send back
--                                  (nil on the first)
local pipe = mgpu.import("nn.pipe")

local function gpipe(st)
  local comm = st.comm
  for i = 1, st.m do                                   -- all forwards ...
    local x
    if st.prev then x = st:buffer(); comm:recv(x, st.prev) end
    local y = st:forward(i, x)
    if st.next then comm:send(y, st.next) end
  end
  for i = st.m, 1, -1 do                               -- ... then all backwards
    local dy
    if st.next then dy = st:buffer(); comm:recv(dy, st.next) end
    local dx = st:backward(i, dy)
    if st.prev then comm:send(dx, st.prev) end
  end
end

pipe.run{schedule = gpipe, args = mgpu.args}
