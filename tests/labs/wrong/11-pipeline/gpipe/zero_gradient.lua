-- wrong: the backward starts every stage but the last from a fresh (zero)
--        buffer instead of the gradient the next stage computed; nothing is
--        sent back, so nothing hangs, but only the last stage learns
-- verdict: the gradient that flows back from stage 3
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
    if st.next then dy = st:buffer():fill(0) end
    local dx = st:backward(i, dy)
  end
end

pipe.run{schedule = gpipe, args = mgpu.args}
