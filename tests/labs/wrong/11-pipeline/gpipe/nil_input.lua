-- wrong: sends each activation on but forwards with nil instead of what it
--        received: the stage never looks at its neighbour's data
-- verdict: got nil where it needs the tensor received from stage
local pipe = mgpu.import("nn.pipe")

local function gpipe(st)
  local comm = st.comm
  for i = 1, st.m do                                   -- all forwards ...
    local x
    if st.prev then x = st:buffer(); comm:recv(x, st.prev) end
    local y = st:forward(i, nil)
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
