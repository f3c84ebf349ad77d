-- labs/lib/nn/init.lua - a small neural-network library for the labs,
-- loaded with `local nn = mgpu.import("nn")`.
--
-- There is no hidden autograd. A module has
--   m:forward(x)            -> y        (remembers what backward needs)
--   m:backward(dy, ready)   -> dx       (fills each parameter's .grad)
--   m:parameters(list)      -> list     (appends its parameters, in forward order)
-- and backward calls ready(p) for each parameter the moment p.grad is
-- final, in the order the gradients are produced (the last layer's
-- first). DDP buckets and FSDP reduce-scatters are built on those calls.
--
-- A parameter is {name=, value=tensor, grad=tensor}. All ops are mgpu.nn's:
-- they run on the device (or the sim) and are queued on the default stream.
local nn = {}

--- Tensors --------------------------------------------------------------

-- A device tensor of `shape` (a list of dims) and dtype (default f32).
-- With nn.phantom = true every tensor the library makes is phantom
-- (shape-only): a model then takes its modelled time and memory on the sim
-- without computing anything (a 70B what-if; bench/nn_bench.lua's
-- predictions). Reading a phantom value (loss:get) is an error.
nn.phantom = false
function nn.empty(shape, dtype)
  return mgpu.tensor{shape = shape, dtype = dtype or "f32", phantom = nn.phantom}
end

-- Same-shape dims? (for reusing buffers between steps)
local function same_shape(t, shape)
  local s = t:shape()
  if #s ~= #shape then return false end
  for i = 1, #s do if s[i] ~= shape[i] then return false end end
  return true
end

-- A module's named scratch tensor of `shape`, reused while the shape stays.
function nn.buffer(m, name, shape, dtype)
  m._buf = m._buf or {}
  local t = m._buf[name]
  if not t or not same_shape(t, shape) or t:dtype() ~= (dtype or m.dtype or "f32") then
    t = nn.empty(shape, dtype or m.dtype or "f32")
    m._buf[name] = t
  end
  return t
end

-- Deterministic initialisation: uniform in [-bound, bound) from `seed`.
function nn.uniform_(t, bound, seed)
  t:fill{kind = "random", seed = seed}           -- uniform in [-1, 1)
  mgpu.nn.add(t, t, t, {alpha = bound, beta = 0})
  return t
end

local function param(name, shape, dtype)
  local p = {name = name, value = nn.empty(shape, dtype), grad = nn.empty(shape, dtype)}
  p.grad:fill(0)
  return p
end

--- Modules -----------------------------------------------------------------

local Module = {}
Module.__index = Module
function Module:parameters(list) return list or {} end
-- Buffers: state that is not trained but changes as the model runs (batch
-- norm's running statistics), {name =, value =} in forward order.
function Module:buffers(list) return list or {} end
function Module:train(on) self.training = on ~= false; return self end
nn.Module = Module

local function class(name)
  local c = setmetatable({}, {__index = Module})
  c.__index = c
  c.__name = name
  return c
end
nn.class = class

-- Linear: y = x W^T + b, W [out, in]; x [.., in].
local Linear = class("Linear")
nn.Linear = Linear
function nn.linear(name, fan_in, fan_out, opts)
  opts = opts or {}
  local m = setmetatable({name = name, fan_in = fan_in, fan_out = fan_out, dtype = opts.dtype}, Linear)
  m.weight = param(name .. ".weight", {fan_out, fan_in}, opts.dtype)
  nn.uniform_(m.weight.value, 1 / math.sqrt(fan_in), opts.seed or 1)
  if opts.bias ~= false then
    m.bias = param(name .. ".bias", {fan_out}, opts.dtype)
    m.bias.value:fill(0)
  end
  return m
end
function Linear:parameters(list)
  list = list or {}
  list[#list + 1] = self.weight
  if self.bias then list[#list + 1] = self.bias end
  return list
end
function Linear:forward(x)
  local n = x:count() // self.fan_in
  self.in_shape = x:shape()
  self.x = x:view{n, self.fan_in}
  local y = nn.buffer(self, "y", {n, self.fan_out})
  mgpu.nn.gemm(self.x, self.weight.value, y, {tb = true})
  if self.bias then mgpu.nn.bias_add(y, self.bias.value, y) end
  local shape = x:shape(); shape[#shape] = self.fan_out
  return y:view(shape)
end
function Linear:backward(dy, ready)
  local n = dy:count() // self.fan_out
  local d = dy:view{n, self.fan_out}
  mgpu.nn.gemm(d, self.x, self.weight.grad, {ta = true})  -- dW = dy^T x
  if ready then ready(self.weight) end
  if self.bias then
    mgpu.nn.bias_grad(d, self.bias.grad)
    if ready then ready(self.bias) end
  end
  local dx = nn.buffer(self, "dx", {n, self.fan_in})
  mgpu.nn.gemm(d, self.weight.value, dx)                  -- dx = dy W
  return dx:view(self.in_shape)                           -- shaped as the input was
end

-- Conv2d without bias (a batch norm follows it): w [out, in, k, k].
local Conv2d = class("Conv2d")
nn.Conv2d = Conv2d
function nn.conv2d(name, cin, cout, k, opts)
  opts = opts or {}
  local m = setmetatable({name = name, cin = cin, cout = cout, k = k, stride = opts.stride or 1,
                          pad = opts.pad or (k // 2), dtype = opts.dtype}, Conv2d)
  m.weight = param(name .. ".weight", {cout, cin, k, k}, opts.dtype)
  -- uniform in [-1/sqrt(fan_in), 1/sqrt(fan_in)), as torch's Conv2d
  -- (kaiming_uniform with a = sqrt(5)). Not He's sqrt(6 / fan_in): with a
  -- batch norm after every conv, a weight's scale does not change the
  -- forward but divides its effective learning rate by the scale squared -
  -- He's bound (2.45x) made the ResNet learn 6x slower than torch's, and the
  -- DDP comparison's loss curves part (docs/gpu-results.md, 2026-12-03).
  nn.uniform_(m.weight.value, 1 / math.sqrt(cin * k * k), opts.seed or 1)
  return m
end
function Conv2d:parameters(list)
  list = list or {}
  list[#list + 1] = self.weight
  return list
end
function Conv2d:forward(x)
  local s = x:shape()
  local p = (s[3] + 2 * self.pad - self.k) // self.stride + 1
  local q = (s[4] + 2 * self.pad - self.k) // self.stride + 1
  self.x = x
  local y = nn.buffer(self, "y", {s[1], self.cout, p, q})
  mgpu.nn.conv2d(x, self.weight.value, y, {stride = self.stride, pad = self.pad})
  return y
end
function Conv2d:backward(dy, ready)
  local dx = self.first and nil or nn.buffer(self, "dx", self.x:shape())
  mgpu.nn.conv2d_backward(self.x, self.weight.value, dy, dx, self.weight.grad, {stride = self.stride, pad = self.pad})
  if ready then ready(self.weight) end
  return dx
end

-- BatchNorm2d: per-channel statistics of the batch when training, the
-- running ones (buffers, not parameters) in eval.
local BatchNorm = class("BatchNorm")
nn.BatchNorm = BatchNorm
function nn.batchnorm(name, c, opts)
  opts = opts or {}
  local m = setmetatable({name = name, c = c, momentum = opts.momentum or 0.1, eps = opts.eps or 1e-5,
                          training = true, dtype = opts.dtype}, BatchNorm)
  m.weight = param(name .. ".weight", {c}, opts.dtype)
  m.weight.value:fill(1)
  m.bias = param(name .. ".bias", {c}, opts.dtype)
  m.bias.value:fill(0)
  m.running_mean = nn.empty({c}):fill(0)
  m.running_var = nn.empty({c}):fill(1)
  m.save_mean = nn.empty({c})
  m.save_invstd = nn.empty({c})
  return m
end
function BatchNorm:parameters(list)
  list = list or {}
  list[#list + 1] = self.weight
  list[#list + 1] = self.bias
  return list
end
function BatchNorm:buffers(list)
  list = list or {}
  list[#list + 1] = {name = self.name .. ".running_mean", value = self.running_mean}
  list[#list + 1] = {name = self.name .. ".running_var", value = self.running_var}
  return list
end
function BatchNorm:forward(x)
  self.x = x
  local y = nn.buffer(self, "y", x:shape())
  mgpu.nn.batchnorm(x, self.weight.value, self.bias.value, self.running_mean, self.running_var,
                    self.save_mean, self.save_invstd, y,
                    {train = self.training, momentum = self.momentum, eps = self.eps})
  return y
end
function BatchNorm:backward(dy, ready)
  local dx = nn.buffer(self, "dx", dy:shape())
  mgpu.nn.batchnorm_backward(self.x, self.weight.value, self.save_mean, self.save_invstd, dy, dx,
                             self.weight.grad, self.bias.grad)
  if ready then ready(self.weight); ready(self.bias) end
  return dx
end

-- Activation ("relu", "gelu", "silu"): no parameters.
local Act = class("Act")
nn.Act = Act
function nn.act(kind) return setmetatable({kind = kind}, Act) end
function Act:forward(x)
  self.x = x
  local y = nn.buffer(self, "y", x:shape(), x:dtype())
  mgpu.nn.act(self.kind, x, y)
  return y
end
function Act:backward(dy)
  local dx = nn.buffer(self, "dx", dy:shape(), dy:dtype())
  mgpu.nn.act_backward(self.kind, self.x, dy, dx)
  return dx
end

-- RMSNorm over the last dim (LayerNorm with `layer = true`).
local Norm = class("Norm")
nn.Norm = Norm
function nn.rmsnorm(name, d, opts)
  opts = opts or {}
  local m = setmetatable({name = name, d = d, eps = opts.eps or 1e-6, layer = opts.layer, dtype = opts.dtype}, Norm)
  m.weight = param(name .. ".weight", {d}, opts.dtype)
  m.weight.value:fill(1)
  if m.layer then
    m.bias = param(name .. ".bias", {d}, opts.dtype)
    m.bias.value:fill(0)
  end
  return m
end
function nn.layernorm(name, d, opts)
  opts = opts or {}
  opts.layer = true
  opts.eps = opts.eps or 1e-5
  return nn.rmsnorm(name, d, opts)
end
function Norm:parameters(list)
  list = list or {}
  list[#list + 1] = self.weight
  if self.bias then list[#list + 1] = self.bias end
  return list
end
function Norm:forward(x)
  self.x = x
  local rows = x:count() // self.d
  local y = nn.buffer(self, "y", x:shape())
  self.rstd = nn.buffer(self, "rstd", {rows}, "f32")
  if self.layer then
    self.mean = nn.buffer(self, "mean", {rows}, "f32")
    mgpu.nn.layernorm(x, self.weight.value, self.bias.value, y, self.mean, self.rstd, {eps = self.eps})
  else
    mgpu.nn.rmsnorm(x, self.weight.value, y, self.rstd, {eps = self.eps})
  end
  return y
end
function Norm:backward(dy, ready)
  local dx = nn.buffer(self, "dx", dy:shape())
  if self.layer then
    mgpu.nn.layernorm_backward(self.x, self.weight.value, self.mean, self.rstd, dy, dx, self.weight.grad, self.bias.grad)
  else
    mgpu.nn.rmsnorm_backward(self.x, self.weight.value, self.rstd, dy, dx, self.weight.grad)
  end
  if ready then
    ready(self.weight)
    if self.bias then ready(self.bias) end
  end
  return dx
end

-- Embedding: ids (i32, any shape) -> rows of the table [vocab, dim].
local Embedding = class("Embedding")
nn.Embedding = Embedding
function nn.embedding(name, vocab, d, opts)
  opts = opts or {}
  local m = setmetatable({name = name, vocab = vocab, d = d, dtype = opts.dtype}, Embedding)
  m.weight = param(name .. ".weight", {vocab, d}, opts.dtype)
  nn.uniform_(m.weight.value, 1.0, opts.seed or 1)
  return m
end
function Embedding:parameters(list)
  list = list or {}
  list[#list + 1] = self.weight
  return list
end
function Embedding:forward(ids)
  self.ids = ids
  local shape = ids:shape(); shape[#shape + 1] = self.d
  local y = nn.buffer(self, "y", shape)
  mgpu.nn.embedding(ids, self.weight.value, y)
  return y
end
function Embedding:backward(dy, ready)
  self.weight.grad:fill(0)                               -- the backward accumulates rows
  mgpu.nn.embedding_backward(self.ids, dy, self.weight.grad)
  if ready then ready(self.weight) end
  return nil                                              -- ids have no gradient
end

-- Sequential: forward in order, backward in reverse.
local Sequential = class("Sequential")
nn.Sequential = Sequential
function nn.sequential(mods) return setmetatable({mods = mods}, Sequential) end
function Sequential:parameters(list)
  list = list or {}
  for _, m in ipairs(self.mods) do m:parameters(list) end
  return list
end
function Sequential:buffers(list)
  list = list or {}
  for _, m in ipairs(self.mods) do m:buffers(list) end
  return list
end
function Sequential:train(on)
  for _, m in ipairs(self.mods) do m:train(on) end
  return self
end
function Sequential:forward(x)
  for _, m in ipairs(self.mods) do x = m:forward(x) end
  return x
end
function Sequential:backward(dy, ready)
  for i = #self.mods, 1, -1 do dy = self.mods[i]:backward(dy, ready) end
  return dy
end

--- Loss, optimizers, clipping ------------------------------------------------

-- Softmax cross-entropy with its gradient in one op. Returns the loss
-- tensor {mean loss, rows right} and dlogits.
local CrossEntropy = class("CrossEntropy")
function nn.cross_entropy() return setmetatable({loss = nn.empty({2})}, CrossEntropy) end
function CrossEntropy:forward(logits, labels)
  self.dlogits = nn.buffer(self, "dlogits", logits:shape(), logits:dtype())
  mgpu.nn.cross_entropy(logits, labels, self.loss, self.dlogits)
  return self.loss, self.dlogits
end

-- SGD with momentum (buffers created on first use).
function nn.sgd(opts)
  local o = {lr = opts.lr or 0.1, momentum = opts.momentum or 0.9, weight_decay = opts.weight_decay or 0, state = {}}
  function o:step(params)
    for _, p in ipairs(params) do self:step_one(p) end
  end
  function o:step_one(p)
    local m = self.state[p]
    if not m then m = nn.empty(p.value:shape()):fill(0); self.state[p] = m end
    mgpu.nn.sgd(p.value, p.grad, m, {lr = self.lr, momentum = self.momentum, weight_decay = self.weight_decay})
  end
  return o
end

-- AdamW, one fused update per parameter.
function nn.adamw(opts)
  local o = {lr = opts.lr or 1e-3, beta1 = opts.beta1 or 0.9, beta2 = opts.beta2 or 0.999, eps = opts.eps or 1e-8,
             weight_decay = opts.weight_decay or 0.01, t = 0, state = {}}
  function o:step(params)
    self.t = self.t + 1
    for _, p in ipairs(params) do
      local st = self.state[p]
      if not st then
        st = {m = nn.empty(p.value:shape()):fill(0), v = nn.empty(p.value:shape()):fill(0)}
        self.state[p] = st
      end
      mgpu.nn.adamw(p.value, p.grad, st.m, st.v, {lr = self.lr, beta1 = self.beta1, beta2 = self.beta2,
                                                  eps = self.eps, weight_decay = self.weight_decay, step = self.t})
    end
  end
  return o
end

-- Scale every gradient so their total norm is at most max_norm, on the
-- device (no trip to the host); returns the tensor holding norm^2.
function nn.clip_grad_norm(params, max_norm, acc)
  acc = acc or nn.empty({1})
  for i, p in ipairs(params) do mgpu.nn.sumsq(p.grad, acc, {accumulate = i > 1}) end
  for _, p in ipairs(params) do mgpu.nn.clip_scale(p.grad, acc, {max_norm = max_norm}) end
  return acc
end

-- The median of a list of numbers (step times), nil for an empty list.
function nn.median(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  if #s == 0 then return nil end
  return #s % 2 == 1 and s[(#s + 1) // 2] or (s[#s // 2] + s[#s // 2 + 1]) / 2
end

-- Elements in a parameter list.
function nn.count(params)
  local n = 0
  for _, p in ipairs(params) do n = n + p.value:count() end
  return n
end

return nn
