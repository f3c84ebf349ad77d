-- sp.lua - lab 11, step 5: lab 6 의 tensor-parallel layer 위의 Megatron
-- sequence parallelism. rank 4 개, TP group 하나 (comm 이 그 communicator).
--
-- TP block 바깥 (norm, residual add) 에서 rank 는 이제 sequence 의 4 분의 1
-- 만 갖는다: layer 의 input 은 [1, T/4, dim], rank r 의 token
-- r*T/4 .. (r+1)*T/4 - 1 이고, output 도 그렇다. block 안에서는 바뀌는 것이
-- 없다: column-parallel layer 는 token 전부가 필요하고, row-parallel layer 는
-- 모든 token 에 대한 이 rank 의 partial sum 을 낸다.
--
-- 그래서 block 둘레의 두 operator 가 바뀐다 (lab 6 에서는 f: identity /
-- all-reduce, g: all-reduce / identity 였다):
--   F  block 에 들어갈 때: forward  [1, T/4, dim] -> [1, T, dim]
--                          backward [1, T, dim]   -> [1, T/4, dim]
--   G  block 에서 나올 때: forward  [1, T, dim]   -> [1, T/4, dim]
--                          backward [1, T/4, dim] -> [1, T, dim]
-- comm:all_gather(send, recv) 는 rank r 의 send 를 recv 의 block r 에 놓는다;
-- comm:reduce_scatter(send, recv, "sum") 은 rank r 에 합의 block r 을 준다.
local sp = mgpu.import("nn.sp")
local nn = mgpu.import("nn")

-- [1, rows, dim] tensor 의 shape 에서 rows 를 `k` 배 한 것.
local function rows_times(t, k)
  local s = t:shape()
  s[2] = s[2] * k
  return s
end
local function rows_over(t, k)
  local s = t:shape()
  s[2] = s[2] // k
  return s
end

local F = {}
F.__index = F
function F.new(comm) return setmetatable({comm = comm}, F) end
function F:forward(x)
  -- TODO: block 은 token 전부가 필요하다
  return x
end
function F:backward(dx)
  -- TODO
  return dx
end

local G = {}
G.__index = G
function G.new(comm) return setmetatable({comm = comm}, G) end
function G:forward(y)
  -- TODO: layer 는 이 rank 의 token 만 가지고 이어진다
  return y
end
function G:backward(dy)
  -- TODO
  return dy
end

-- 이들이 들어가는 자리: lab 6 과 같다.
local function mlp_forward(m, x)
  return m.g:forward(m.fc2:forward(m.act:forward(m.fc1:forward(m.f:forward(x)))))
end
local function mlp_backward(m, dy, ready)
  return m.f:backward(m.fc1:backward(m.act:backward(m.fc2:backward(m.g:backward(dy), ready)), ready))
end
local function attention_forward(a, x)
  return a.g:forward(a.core:forward(a.f:forward(x)))
end
local function attention_backward(a, dy, ready)
  return a.f:backward(a.core:backward(a.g:backward(dy), ready))
end

-- backward 뒤에. params = 이 rank 의 layer 들의 {name =, value =, grad =,
-- shard =}; 모든 rank 가 통째로 갖는 parameter (norm 의 weight) 는
-- p.shard 가 nil 이다. groups.tp 는 TP communicator 다.
local function sync_grads(params, groups)
  -- TODO: backward 가 끝나면 모든 gradient 가 온전한가?
end

sp.run{ops = {F = F, G = G, mlp_forward = mlp_forward, mlp_backward = mlp_backward,
              attention_forward = attention_forward, attention_backward = attention_backward,
              sync_grads = sync_grads},
       args = mgpu.args}
