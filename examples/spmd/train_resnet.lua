-- train_resnet.lua - train a ResNet for 32x32 images on synthetic data,
-- every rank on its own GPU with the same seed (no gradient exchange yet:
-- that is lab 4's exercise). Arguments: steps, batch, depth (8 or 20).
--   mgpulab spmd examples/spmd/train_resnet.lua --ranks 1 -- 60 32 8
-- (a long run on the sim needs --time-limit: a script gets 120 s by default)
-- Prints the loss every 10 steps, the accuracy on held-out batches and a
-- checksum of every parameter: the same seed gives the same bits.
local nn = mgpu.import("nn")
local resnet = mgpu.import("nn.resnet")
local data = mgpu.import("nn.data")

local steps = math.tointeger(tonumber(mgpu.args[1] or "")) or 60
local batch = math.tointeger(tonumber(mgpu.args[2] or "")) or 32
local depth = math.tointeger(tonumber(mgpu.args[3] or "")) or 8

local model = resnet.new{depth = depth, classes = 10}
local params = model:parameters()
local set = data.images{classes = 10, seed = 1}
local ce = nn.cross_entropy()
local opt = nn.sgd{lr = 0.05, momentum = 0.9, weight_decay = 5e-4}
print(("ResNet-%d: %d parameter tensors, %d weights; %d steps of batch %d"):format(
  depth, #params, nn.count(params), steps, batch))

local first_loss, last_loss
for step = 1, steps do
  local x, labels = set:batch(step, batch)
  local loss, dlogits = ce:forward(model:forward(x), labels)
  model:backward(dlogits)
  opt:step(params)
  if step == 1 then first_loss = loss:get(0) end
  if step % 10 == 0 or step == steps then
    last_loss = loss:get(0)
    print(("step %d loss %.4f"):format(step, last_loss))
  end
end

-- held-out batches (steps no training step drew), batch norm in eval mode
model:train(false)
local right, seen = 0, 0
for k = 1, 4 do
  local x, labels = set:batch(1000000 + k, 64)
  local loss = ce:forward(model:forward(x), labels)
  right, seen = right + loss:get(1), seen + 64
end

local sum = 0
for _, p in ipairs(params) do sum = sum ~ p.value:checksum() end
print(("accuracy %.3f on %d held-out images; parameters checksum %016x"):format(right / seen, seen, sum))
mgpu.result{first_loss = first_loss, last_loss = last_loss, accuracy = right / seen,
            checksum = ("%016x"):format(sum)}
