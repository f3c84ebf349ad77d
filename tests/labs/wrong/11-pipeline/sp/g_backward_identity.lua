-- wrong: keeps lab 6's g backward (the identity): the block's backward gets
--        only this rank's tokens' gradient where it needs every token's
-- verdict: the block's backward needs the gradient of every token
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
  local full = nn.empty(rows_times(x, self.comm:size()))
  self.comm:all_gather(x, full)                    -- every rank's tokens, in rank order
  return full
end
function F:backward(dx)
  local mine = nn.empty(rows_over(dx, self.comm:size()))
  self.comm:reduce_scatter(dx, mine, "sum")        -- this rank's tokens, summed over the group
  return mine
end

local G = {}
G.__index = G
function G.new(comm) return setmetatable({comm = comm}, G) end
function G:forward(y)
  local mine = nn.empty(rows_over(y, self.comm:size()))
  self.comm:reduce_scatter(y, mine, "sum")         -- the partial sums of this rank's tokens
  return mine
end
function G:backward(dy)
  return dy                                        -- as lab 6's g
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
  for _, p in ipairs(params) do
    -- a norm saw only this rank's tokens: its gradient is a partial sum
    if not p.shard then groups.tp:all_reduce(p.grad, "sum") end
  end
end

sp.run{ops = {F = F, G = G, mlp_forward = mlp_forward, mlp_backward = mlp_backward,
              attention_forward = attention_forward, attention_backward = attention_backward,
              sync_grads = sync_grads},
       args = mgpu.args}
