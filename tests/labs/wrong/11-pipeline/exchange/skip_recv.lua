-- wrong: "fixes" the deadlock by never receiving a gradient: the backward
--        starts from an empty buffer and keeps its own gradient, so nothing
--        hangs and nothing before the last stage learns right
-- verdict: the gradient that flows back from stage 3
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
  return st:buffer():fill(0)
end
local function send_backward(st, dx)
  -- the gradient stays here
end

-- The two exchanges: the send and the receive of each are one NCCL group,
-- launched together, so neither waits for the other to be posted first
-- (Megatron's batch_isend_irecv).
local function send_forward_recv_backward(st, y)
  if not st.next then return nil end
  st.comm:send(y, st.next)
  return st:buffer():fill(0)
end
local function send_backward_recv_forward(st, dx)
  if not st.prev then return nil end
  local x = st:buffer()
  st.comm:recv(x, st.prev)
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
