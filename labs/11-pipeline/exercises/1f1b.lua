-- 1f1b.lua - lab 11, step 2: one forward, one backward (PipeDream-Flush,
-- Megatron's default schedule). Same stage API as gpipe.lua:
--   st.stage, st.stages, st.m, st.prev, st.next, st.comm, st:buffer(),
--   st:forward(i, x) -> y, st:backward(i, dy) -> dx
-- A stage runs a few forwards to fill the pipeline (the warm-up), then
-- alternates one forward and one backward (the steady state), then runs
-- the backwards that are left (the cool-down).
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
  -- TODO: this runs every forward before the first backward (GPipe's
  -- order): make it a warm-up, a steady state and a cool-down.
  for i = 1, st.m do fwd(i) end
  for i = 1, st.m do bwd(i) end
end

pipe.run{schedule = one_f_one_b, args = mgpu.args}
