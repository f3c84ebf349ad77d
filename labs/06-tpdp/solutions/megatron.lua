-- megatron.lua - lab 6, step 2: the Megatron layer's f and g operators,
-- where they go, and the gradient sync of TP x DP.
--
-- 8 ranks: TP groups {0-3} and {4-7}, DP groups {0,4} {1,5} {2,6} {3,7}.
-- Inside a TP group every rank holds a quarter of each layer:
--   the MLP:       fc1 column-parallel (a quarter of the hidden units: its
--                  rows of fc1's weight and bias), GELU, fc2 row-parallel (the
--                  same quarter of fc2's inputs: its columns of fc2's weight);
--   attention:     wq, wk, wv column-parallel (a quarter of the heads: in
--                  step 2's model 2 of the 8 query heads and 1 of the 4
--                  key/value heads), the attention of those heads, wo
--                  row-parallel.
-- The layer's input x is the same on every rank of the TP group; a
-- row-parallel output is only this rank's PARTIAL SUM of the true output.
--
-- The operators (Megatron-LM's names, "f" and "g"; comm is the TP group's):
--   f: identity in forward;          backward: all-reduce (sum) the gradient
--   g: all-reduce (sum) in forward;  backward: identity
-- A module here has forward(x) -> y and backward(dy) -> dx.
local train = mgpu.import("tp.train")

local F = {}
F.__index = F
function F.new(comm) return setmetatable({comm = comm}, F) end
function F:forward(x) return x end
function F:backward(dx)
  self.comm:all_reduce(dx, "sum")          -- every rank's share of dL/dx, summed
  return dx
end

local G = {}
G.__index = G
function G.new(comm) return setmetatable({comm = comm}, G) end
function G:forward(y)
  self.comm:all_reduce(y, "sum")           -- the partial sums, added up
  return y
end
function G:backward(dy) return dy end

-- Where they go. m: {f, fc1, act, fc2, g}; a: {f, core, g} (core runs the
-- projections and this rank's heads). forward returns the block's output,
-- backward the gradient of its input; ready is passed on to the layers.
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

-- After backward: each rank's gradients are those of its DP shard of the
-- batch. groups = {tp =, dp =, world =, tp_rank, dp_rank, ...}; params =
-- {name =, value =, grad =} of this rank's shard of the model.
local function sync_grads(params, groups)
  for _, p in ipairs(params) do groups.dp:all_reduce(p.grad, "avg") end
end

train.run{ops = {F = F, G = G, mlp_forward = mlp_forward, mlp_backward = mlp_backward,
                 attention_forward = attention_forward, attention_backward = attention_backward,
                 sync_grads = sync_grads},
          args = mgpu.args}
