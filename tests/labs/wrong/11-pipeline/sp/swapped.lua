-- wrong: the all-gather and the reduce-scatter in each other's places: F
--        reduce-scatters the layer's shard into a sixteenth, G gathers it back
--        to a quarter - the shapes fit, but the blocks saw a sixteenth of the tokens
-- verdict: need every token of the sequence
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
  local part = nn.empty(rows_over(x, self.comm:size()))
  self.comm:reduce_scatter(x, part, "sum")
  return part
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
  local full = nn.empty(rows_times(y, self.comm:size()))
  self.comm:all_gather(y, full)
  return full
end
function G:backward(dy)
  local full = nn.empty(rows_times(dy, self.comm:size()))
  self.comm:all_gather(dy, full)                   -- every token's gradient
  return full
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
