-- exchange.lua - lab 11, step 4: Megatron-LM 이 쓰는 대로의 1F1B, 그리고 그
-- point-to-point helper 넷. steady state 에서 stage 는 호출 하나로 send 와
-- receive 를 함께 한다: send_forward_recv_backward (내 output 을 넘기고,
-- 더 오래된 micro-batch 의 gradient 를 돌려받는다) 와
-- send_backward_recv_forward (gradient 를 돌려보내고, 다음 input 을 받는다).
-- stage s 의 첫 번째 호출은 stage s+1 의 두 번째 호출과 짝을 이룬다: 둘은
-- 같은 순간에 서로 통신한다.
local pipe = mgpu.import("nn.pipe")

local function recv_forward(st)
  if not st.prev then return nil end
  local x = st:buffer()
  st.comm:recv(x, st.prev)
  return x
end
local function send_forward(st, y)
  if st.next then st.comm:send(y, st.next) end
end
local function recv_backward(st)
  if not st.next then return nil end
  local dy = st:buffer()
  st.comm:recv(dy, st.next)
  return dy
end
local function send_backward(st, dx)
  if st.prev then st.comm:send(dx, st.prev) end
end

-- 두 교환. TODO: 지금 쓰인 대로는 두 stage 사이에서 deadlock 한다:
-- step 을 돌리고, flight record 를 읽은 다음, 고친다.
local function send_forward_recv_backward(st, y)
  if not st.next then return nil end
  local dy = st:buffer()
  st.comm:recv(dy, st.next)                 -- 다음 stage 의 gradient 를 받고 ...
  st.comm:send(y, st.next)                  -- ... 그다음 내 output 을 그쪽으로 보낸다
  return dy
end
local function send_backward_recv_forward(st, dx)
  if not st.prev then return nil end
  local x = st:buffer()
  st.comm:recv(x, st.prev)                  -- 이전 stage 의 다음 input 을 받고 ...
  st.comm:send(dx, st.prev)                 -- ... 그다음 내 gradient 를 그쪽으로 보낸다
  return x
end

local function one_f_one_b(st)
  local warm = math.min(st.stages - st.stage - 1, st.m)
  for i = 1, warm do
    send_forward(st, st:forward(i, recv_forward(st)))
  end
  local x = warm < st.m and recv_forward(st) or nil
  for i = warm + 1, st.m do
    local dy = send_forward_recv_backward(st, st:forward(i, x))
    local dx = st:backward(i - warm, dy)
    if i < st.m then x = send_backward_recv_forward(st, dx) else send_backward(st, dx) end
  end
  for i = st.m - warm + 1, st.m do
    send_backward(st, st:backward(i, recv_backward(st)))
  end
end

pipe.run{schedule = one_f_one_b, args = mgpu.args}
