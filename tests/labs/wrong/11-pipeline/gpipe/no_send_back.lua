-- wrong: receives the gradient from the next stage but never sends its own
--        back: each stage waits for a gradient that does not come
-- verdict: without sending rank 2 what it waits for
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
  end
end

pipe.run{schedule = gpipe, args = mgpu.args}
