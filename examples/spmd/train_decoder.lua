-- train_decoder.lua - a small Llama-style decoder (RMSNorm, causal
-- attention with grouped KV heads, SwiGLU) learns synthetic token
-- sequences whose next token follows from the current one, with AdamW and
-- gradient-norm clipping. Arguments: steps, batch, layers.
--   mgpulab spmd examples/spmd/train_decoder.lua --ranks 1 -- 60 8 2
-- The first backward also lists the order in which gradients became ready
-- (the last layer's first): the order DDP buckets follow.
local nn = mgpu.import("nn")
local tf = mgpu.import("nn.transformer")
local data = mgpu.import("nn.data")

local steps = math.tointeger(tonumber(mgpu.args[1] or "")) or 60
local batch = math.tointeger(tonumber(mgpu.args[2] or "")) or 8
local layers = math.tointeger(tonumber(mgpu.args[3] or "")) or 2

local vocab, seq = 32, 16
local model = tf.decoder{vocab = vocab, dim = 32, heads = 4, kv_heads = 2, layers = layers, hidden = 64}
local params = model:parameters()
local set = data.tokens{vocab = vocab, seq = seq, seed = 3}
local ce = nn.cross_entropy()
local opt = nn.adamw{lr = 3e-3, weight_decay = 0}
print(("decoder: %d layers, %d parameter tensors, %d weights"):format(layers, #params, nn.count(params)))

local order, first_loss, last_loss, acc = {}, nil, nil, 0
for step = 1, steps do
  local ids, targets = set:batch(step, batch)
  local loss, dlogits = ce:forward(model:forward(ids), targets)
  model:backward(dlogits, step == 1 and function(p) order[#order + 1] = p.name end or nil)
  nn.clip_grad_norm(params, 1.0)
  opt:step(params)
  if step == 1 then first_loss = loss:get(0) end
  if step % 10 == 0 or step == steps then
    last_loss, acc = loss:get(0), loss:get(1) / (batch * seq)
    print(("step %d loss %.4f next-token accuracy %.3f"):format(step, last_loss, acc))
  end
end
print("gradients ready in order: " .. table.concat(order, ", ", 1, math.min(#order, 6)) .. ", ...")
mgpu.result{first_loss = first_loss, last_loss = last_loss, accuracy = acc, ready_first = order[1],
            ready_last = order[#order], ready_count = #order, params = #params}
