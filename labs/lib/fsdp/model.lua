-- labs/lib/fsdp/model.lua - the shapes of a Llama-style decoder, as FSDP
-- wraps it: unit 1 is the embedding, units 2..L+1 the decoder layers, the
-- last unit the final norm and the LM head. Every parameter count in lab 5
-- comes from these shapes (no "70B" is written anywhere as a number).
--   local model = mgpu.import("fsdp.model")
--   local cfg = model.llama2_70b()
--   model.count(cfg)  -- 68 976 648 192
local model = {}

-- Llama-2-70B (Touvron et al., 2023, table 1 and the released config):
-- 80 layers, hidden 8192, SwiGLU FFN 28672, 64 query heads sharing 8 KV
-- heads (grouped-query attention), vocabulary 32000, untied LM head.
function model.llama2_70b()
  return {name = "Llama-2-70B", layers = 80, dim = 8192, ffn = 28672, heads = 64, kv_heads = 8, vocab = 32000}
end

-- The proxy of step 4: the same layer structure, scaled to run for real.
function model.proxy()
  return {name = "proxy", layers = 3, dim = 64, ffn = 160, heads = 4, kv_heads = 2, vocab = 48}
end

-- A decoder layer's parameters in the order tf.block lists them
-- (labs/lib/nn/transformer.lua), shapes as nn.linear makes them ([out, in]).
function model.layer_params(c)
  local kvd = c.kv_heads * (c.dim // c.heads)
  return {
    {name = "attn_norm.weight", key = "attn_norm", shape = {c.dim}},
    {name = "attn.wq.weight", key = "wq", shape = {c.dim, c.dim}},
    {name = "attn.wk.weight", key = "wk", shape = {kvd, c.dim}},
    {name = "attn.wv.weight", key = "wv", shape = {kvd, c.dim}},
    {name = "attn.wo.weight", key = "wo", shape = {c.dim, c.dim}},
    {name = "mlp_norm.weight", key = "mlp_norm", shape = {c.dim}},
    {name = "mlp.gate.weight", key = "gate", shape = {c.ffn, c.dim}},
    {name = "mlp.up.weight", key = "up", shape = {c.ffn, c.dim}},
    {name = "mlp.down.weight", key = "down", shape = {c.dim, c.ffn}},
  }
end

-- The FSDP units: {kind = "embed"|"layer"|"head", name =, params = {{name =, key =, shape =}}}
-- (key: the name layer.lua's functions know the weight by)
function model.units(c)
  local u = {{kind = "embed", name = "embed", params = {{name = "embed.weight", key = "embed", shape = {c.vocab, c.dim}}}}}
  for i = 1, c.layers do
    local ps = {}
    for _, p in ipairs(model.layer_params(c)) do
      ps[#ps + 1] = {name = ("layers.%d.%s"):format(i - 1, p.name), key = p.key, shape = p.shape}
    end
    u[#u + 1] = {kind = "layer", name = ("layers.%d"):format(i - 1), params = ps}
  end
  u[#u + 1] = {kind = "head", name = "norm+lm_head",
               params = {{name = "norm.weight", key = "norm", shape = {c.dim}},
                          {name = "lm_head.weight", key = "lm_head", shape = {c.vocab, c.dim}}}}
  return u
end

function model.numel(shape)
  local n = 1
  for _, d in ipairs(shape) do n = n * d end
  return n
end

function model.unit_numel(unit)
  local n = 0
  for _, p in ipairs(unit.params) do n = n + model.numel(p.shape) end
  return n
end

function model.count(c)
  local n = 0
  for _, u in ipairs(model.units(c)) do n = n + model.unit_numel(u) end
  return n
end

-- FLOPs of one training step per token (forward + backward = 3 x forward):
-- 6 per parameter of the matrix multiplies (the embedding lookup is not
-- one) plus attention's two T x T products (causal: PaLM's convention
-- counts them whole, 12 * L * dim * T per token; Chowdhery et al. 2022,
-- appendix B).
function model.flops_per_token(c, seq)
  local n = model.count(c) - c.vocab * c.dim       -- no FLOPs in the embedding lookup
  return 6 * n + 12 * c.layers * c.dim * seq
end

return model
