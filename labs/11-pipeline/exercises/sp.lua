-- sp.lua - lab 11, step 5: Megatron's sequence parallelism on lab 6's
-- tensor-parallel layer. 4 ranks, one TP group (comm is its communicator).
--
-- Outside the TP blocks (the norms, the residual adds) a rank now holds
-- only its quarter of the sequence: the layer's input is [1, T/4, dim],
-- rank r's tokens r*T/4 .. (r+1)*T/4 - 1, and so is its output. Inside a
-- block nothing changes: the column-parallel layers need every token, the
-- row-parallel one gives this rank's partial sums for every token.
--
-- So the two operators around a block change (lab 6's were f: identity /
-- all-reduce, g: all-reduce / identity):
--   F  enters a block:  forward  [1, T/4, dim] -> [1, T, dim]
--                       backward [1, T, dim]   -> [1, T/4, dim]
--   G  leaves a block:  forward  [1, T, dim]   -> [1, T/4, dim]
--                       backward [1, T/4, dim] -> [1, T, dim]
-- comm:all_gather(send, recv) puts rank r's send at block r of recv;
-- comm:reduce_scatter(send, recv, "sum") gives rank r block r of the sum.
local sp = mgpu.import("nn.sp")
local nn = mgpu.import("nn")

-- A [1, rows, dim] tensor's shape with `k` times the rows.
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
  -- TODO: the block needs every token
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
  -- TODO: the layer goes on with this rank's tokens only
  return y
end
function G:backward(dy)
  -- TODO
  return dy
end

-- Where they go: as in lab 6.
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

-- After backward. params = {name =, value =, grad =, shard =} of this
-- rank's layers; p.shard is nil for a parameter every rank holds whole
-- (the norms' weights). groups.tp is the TP communicator.
local function sync_grads(params, groups)
  -- TODO: is every gradient whole once backward is done?
end

sp.run{ops = {F = F, G = G, mlp_forward = mlp_forward, mlp_backward = mlp_backward,
              attention_forward = attention_forward, attention_backward = attention_backward,
              sync_grads = sync_grads},
       args = mgpu.args}
