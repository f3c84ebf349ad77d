-- 1f1b.lua - lab 11, step 2: forward 하나, backward 하나 (PipeDream-Flush,
-- Megatron 의 기본 schedule). stage API 는 gpipe.lua 와 같다:
--   st.stage, st.stages, st.m, st.prev, st.next, st.comm, st:buffer(),
--   st:forward(i, x) -> y, st:backward(i, dy) -> dx
-- stage 는 forward 몇 번으로 pipeline 을 채우고 (warm-up), 그다음 forward
-- 하나와 backward 하나를 번갈아 돌리고 (steady state), 마지막으로 남은
-- backward 를 돌린다 (cool-down).
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
  -- TODO: 지금은 첫 backward 전에 forward 를 전부 돌린다 (GPipe 의
  -- 순서): warm-up, steady state, cool-down 으로 바꾼다.
  for i = 1, st.m do fwd(i) end
  for i = 1, st.m do bwd(i) end
end

pipe.run{schedule = one_f_one_b, args = mgpu.args}
