-- wrong: every stage warms up with p - 1 forwards, the first stage's count:
--        the later stages keep micro-batches they could already have finished
-- verdict: more micro-batches in flight than 1F1B needs
-- verdict: stage 1 held
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
  local warm = math.min(st.stages - 1, st.m)
  for i = 1, warm do fwd(i) end
  -- steady state: forward i, then backward of the oldest micro-batch
  for i = warm + 1, st.m do
    fwd(i)
    bwd(i - warm)
  end
  -- cool-down: the backwards still in flight
  for i = st.m - warm + 1, st.m do bwd(i) end
end

pipe.run{schedule = one_f_one_b, args = mgpu.args}
