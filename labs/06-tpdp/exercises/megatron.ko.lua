-- megatron.lua - lab 6, step 2: Megatron layer 의 f, g operator, 그것이
-- 들어갈 자리, 그리고 TP x DP 의 gradient sync.
--
-- rank 8 개: TP group {0-3} 과 {4-7}, DP group {0,4} {1,5} {2,6} {3,7}.
-- TP group 안에서 모든 rank 는 각 layer 의 4 분의 1 을 갖는다:
--   MLP:           fc1 column-parallel (hidden unit 의 4 분의 1: fc1 의 weight
--                  와 bias 중 자기 row), GELU, fc2 row-parallel (fc2 입력의
--                  같은 4 분의 1: fc2 weight 중 자기 column);
--   attention:     wq, wk, wv column-parallel (head 의 4 분의 1: step 2 의
--                  model 에서는 query head 8 개 중 2 개, key/value head 4 개
--                  중 1 개), 그 head 들의 attention, wo row-parallel.
-- layer 의 입력 x 는 TP group 의 모든 rank 에서 같다; row-parallel 출력은 진짜
-- 출력에 대한 이 rank 의 PARTIAL SUM 일 뿐이다.
--
-- operator (Megatron-LM 의 이름 "f" 와 "g"; comm 은 TP group 의 것):
--   f: forward 에서 identity;          backward: gradient 를 all-reduce (sum)
--   g: forward 에서 all-reduce (sum);  backward: identity
-- 여기서 module 은 forward(x) -> y 와 backward(dy) -> dx 를 갖는다.
local train = mgpu.import("tp.train")

local F = {}
F.__index = F
function F.new(comm) return setmetatable({comm = comm}, F) end
function F:forward(x) return x end
function F:backward(dx)
  -- TODO
  return dx
end

local G = {}
G.__index = G
function G.new(comm) return setmetatable({comm = comm}, G) end
function G:forward(y)
  -- TODO
  return y
end
function G:backward(dy) return dy end

-- 들어갈 자리. m: {f, fc1, act, fc2, g}; a: {f, core, g} (core 는 projection 과
-- 이 rank 의 head 들을 돌린다). forward 는 block 의 출력을, backward 는 입력의
-- gradient 를 return 한다; ready 는 layer 들에 그대로 넘긴다.
-- TODO: f 와 g 를 아직 쓰지 않는다.
local function mlp_forward(m, x)
  return m.fc2:forward(m.act:forward(m.fc1:forward(x)))
end
local function mlp_backward(m, dy, ready)
  return m.fc1:backward(m.act:backward(m.fc2:backward(dy, ready)), ready)
end
local function attention_forward(a, x)
  return a.core:forward(x)
end
local function attention_backward(a, dy, ready)
  return a.core:backward(dy, ready)
end

-- backward 뒤: 각 rank 의 gradient 는 batch 중 자기 DP shard 의 것이다.
-- groups = {tp =, dp =, world =, tp_rank, dp_rank, ...}; params = 이 rank 가
-- 가진 model shard 의 {name =, value =, grad =}.
local function sync_grads(params, groups)
  -- TODO: 모든 rank 의 gradient 를 global batch 전체의 것으로 만든다
end

train.run{ops = {F = F, G = G, mlp_forward = mlp_forward, mlp_backward = mlp_backward,
                 attention_forward = attention_forward, attention_backward = attention_backward,
                 sync_grads = sync_grads},
          args = mgpu.args}
