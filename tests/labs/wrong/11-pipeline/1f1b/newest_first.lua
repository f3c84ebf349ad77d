-- wrong: in the steady state runs the backward of the micro-batch it just
--        forwarded instead of the oldest one in flight: the gradient that
--        arrives belongs to another micro-batch
-- verdict: differ from the unpipelined model
local pipe = mgpu.import("nn.pipe")

local function one_f_one_b(st)
  local comm = st.comm
  local function fwd(i)
    local x
    if st.prev then x = st:buffer(); comm:recv(x, st.prev) end
    local y = st:forward(i, x)
    if st.next then comm:send(y, st.next) end
  end
  local function bwd(i)
    local dy
    if st.next then dy = st:buffer(); comm:recv(dy, st.next) end
    local dx = st:backward(i, dy)
    if st.prev then comm:send(dx, st.prev) end
  end
  -- warm-up: one forward for each later stage, so the last stage can start
  local warm = math.min(st.stages - st.stage - 1, st.m)
  for i = 1, warm do fwd(i) end
  -- steady state: forward i, then backward of the oldest micro-batch
  for i = warm + 1, st.m do
    fwd(i)
    bwd(i)
  end
  -- cool-down: the backwards still in flight
  for i = 1, warm do bwd(i) end
end

pipe.run{schedule = one_f_one_b, args = mgpu.args}
