-- labs/lib/nn/resnet.lua - ResNets for 32x32 images (He et al. 2015, the
-- CIFAR family): depth 6n+2, three stages of n basic blocks with 16, 32
-- and 64 channels; ResNet-8 has n = 1, ResNet-20 n = 3.
--   local resnet = mgpu.import("nn.resnet")
--   local model = resnet.new{depth = 8, classes = 10}
local nn = mgpu.import("nn")
local resnet = {}

-- A basic block: conv3x3-BN-ReLU-conv3x3-BN, plus the input (through a
-- 1x1 conv and BN when the shape changes), then ReLU.
local Block = nn.class("BasicBlock")

local function block(name, cin, cout, stride, seed)
  local b = setmetatable({name = name}, Block)
  b.conv1 = nn.conv2d(name .. ".conv1", cin, cout, 3, {stride = stride, seed = seed})
  b.bn1 = nn.batchnorm(name .. ".bn1", cout)
  b.relu1 = nn.act("relu")
  b.conv2 = nn.conv2d(name .. ".conv2", cout, cout, 3, {seed = seed + 1})
  b.bn2 = nn.batchnorm(name .. ".bn2", cout)
  if stride ~= 1 or cin ~= cout then
    b.down = nn.sequential{nn.conv2d(name .. ".down", cin, cout, 1, {stride = stride, pad = 0, seed = seed + 2}),
                           nn.batchnorm(name .. ".down_bn", cout)}
  end
  b.relu2 = nn.act("relu")
  return b
end

function Block:parameters(list)
  list = list or {}
  for _, m in ipairs{self.conv1, self.bn1, self.conv2, self.bn2} do m:parameters(list) end
  if self.down then self.down:parameters(list) end
  return list
end

function Block:buffers(list)
  list = list or {}
  for _, m in ipairs{self.bn1, self.bn2} do m:buffers(list) end
  if self.down then self.down:buffers(list) end
  return list
end

function Block:train(on)
  for _, m in ipairs{self.bn1, self.bn2} do m:train(on) end
  if self.down then self.down:train(on) end
  return self
end

function Block:forward(x)
  local y = self.bn2:forward(self.conv2:forward(self.relu1:forward(self.bn1:forward(self.conv1:forward(x)))))
  local short = self.down and self.down:forward(x) or x
  local sum = nn.buffer(self, "sum", y:shape())
  mgpu.nn.add(y, short, sum)                       -- the residual connection
  return self.relu2:forward(sum)
end

function Block:backward(dy, ready)
  local dsum = self.relu2:backward(dy)
  -- the sum's gradient flows to both branches unchanged
  local d = self.bn2:backward(dsum, ready)
  d = self.conv2:backward(d, ready)
  d = self.relu1:backward(d)
  d = self.bn1:backward(d, ready)
  d = self.conv1:backward(d, ready)
  local dshort = self.down and self.down:backward(dsum, ready) or dsum
  local dx = nn.buffer(self, "dx", d:shape())
  mgpu.nn.add(d, dshort, dx)
  return dx
end

-- Flatten [N, C, 1, 1]-free: global average pool [N, C, H, W] -> [N, C].
local Pool = nn.class("GlobalAvgPool")
function Pool:forward(x)
  self.shape = x:shape()
  local y = nn.buffer(self, "y", {self.shape[1], self.shape[2]})
  mgpu.nn.avgpool(x, y)
  return y
end
function Pool:backward(dy)
  local dx = nn.buffer(self, "dx", self.shape)
  mgpu.nn.avgpool_backward(dy, dx)
  return dx
end

-- resnet.new{depth = 8|20|32|..., classes = 10, width = 16}
function resnet.new(opts)
  opts = opts or {}
  local depth, classes, w = opts.depth or 8, opts.classes or 10, opts.width or 16
  assert((depth - 2) % 6 == 0, "resnet depth must be 6n+2 (8, 20, 32, ...), got " .. tostring(depth))
  local n = (depth - 2) // 6
  local seed = 100
  local stem = nn.conv2d("stem", 3, w, 3, {seed = seed})
  stem.first = true                                 -- no input gradient needed
  local mods = {stem, nn.batchnorm("stem_bn", w), nn.act("relu")}
  local cin = w
  for stage = 1, 3 do
    local cout = w * 2 ^ (stage - 1) // 1
    for i = 1, n do
      seed = seed + 10
      local stride = (stage > 1 and i == 1) and 2 or 1
      mods[#mods + 1] = block(("layer%d.%d"):format(stage, i - 1), cin, cout, stride, seed)
      cin = cout
    end
  end
  mods[#mods + 1] = setmetatable({}, Pool)
  mods[#mods + 1] = nn.linear("fc", cin, classes, {seed = seed + 50})
  local model = nn.sequential(mods)
  model.depth = depth
  return model
end

return resnet
