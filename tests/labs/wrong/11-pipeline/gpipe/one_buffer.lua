-- wrong: receives every micro-batch into one buffer made before the loop, so
--        each arrival overwrites the input an earlier micro-batch's backward needs
-- verdict: still holds micro-batch
local pipe = mgpu.import("nn.pipe")

local function gpipe(st)
  local comm = st.comm
  local buf = st:buffer()
  for i = 1, st.m do                                   -- all forwards ...
    local x
    if st.prev then x = buf; comm:recv(x, st.prev) end
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
