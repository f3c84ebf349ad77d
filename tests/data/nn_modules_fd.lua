-- nn_modules_fd.lua - the nn library's modules end to end against finite
-- differences of the loss (tests/cli/nn_train.sh): a ResNet block with a
-- downsampling shortcut, a Llama decoder with grouped KV heads, a
-- Megatron MLP. For a few elements of every parameter, the gradient the
-- module's backward produced must match (L(p+h) - L(p-h)) / 2h.
local nn = mgpu.import("nn")
local resnet = mgpu.import("nn.resnet")
local tf = mgpu.import("nn.transformer")
local data = mgpu.import("nn.data")
local ce = nn.cross_entropy()
local H = 3e-4   -- f32: small enough to stay off ReLU kinks, large enough over rounding

local function check(label, model, batch)
  local params = model:parameters()
  local ready = {}
  local loss, dl = ce:forward(model:forward(batch.x), batch.y)
  model:backward(dl, function(p) ready[#ready + 1] = p end)
  assert(#ready == #params, ("%s: %d gradient-ready calls for %d parameters"):format(label, #ready, #params))
  local worst, checked = 0, 0
  for _, p in ipairs(params) do
    local n = p.value:count()
    for k = 0, 2 do
      local i = (k * 7919) % n
      local keep = p.value:get(i)
      local g = p.grad:get(i)
      p.value:set(i, keep + H)
      local lp = ce:forward(model:forward(batch.x), batch.y):get(0)
      p.value:set(i, keep - H)
      local lm = ce:forward(model:forward(batch.x), batch.y):get(0)
      p.value:set(i, keep)
      local num = (lp - lm) / (2 * H)
      local err = math.abs(num - g) / math.max(math.abs(num), 1e-2)
      if err > worst then worst = err end
      checked = checked + 1
      if err > 0.05 then
        error(("%s: %s[%d]: backward %.6g, finite differences %.6g"):format(label, p.name, i, g, num))
      end
    end
  end
  print(("%s: %d parameters, %d elements checked, worst relative error %.2e"):format(label, #params, checked, worst))
end

-- a ResNet-8 on 8x8 images of 4 classes (every block kind is in it)
local set = data.images{classes = 4, seed = 5, size = 8}
local x, y = set:batch(1, 6)
check("resnet-8", resnet.new{depth = 8, classes = 4, width = 4}, {x = x, y = y})

-- a decoder: 4 query heads over 2 KV heads, 2 layers
local toks = data.tokens{vocab = 16, seq = 6, seed = 2}
local ids, targets = toks:batch(1, 2)
check("decoder", tf.decoder{vocab = 16, dim = 16, heads = 4, kv_heads = 2, layers = 2, hidden = 24}, {x = ids, y = targets})

-- a Megatron MLP under a linear head
local mlp = nn.sequential{tf.megatron_mlp("mlp", 8, 32, {seed = 3}), nn.linear("head", 8, 5, {seed = 4})}
local xin = nn.empty({6, 8}):fill{kind = "random", seed = 9}
local lab = nn.empty({6}, "i32")
for i = 0, 5 do lab:set(i, i % 5) end
check("megatron mlp", mlp, {x = xin, y = lab})
mgpu.result{ok = true}
