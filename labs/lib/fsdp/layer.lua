-- labs/lib/fsdp/layer.lua - the Llama decoder as functions of their
-- weights, for FSDP: the weights are views of a unit's gathered flat
-- parameters, valid only between its all-gather and its free, so nothing
-- here keeps a weight. The ops and their order are tf.block's
-- (labs/lib/nn/transformer.lua), so the result equals the nn library's
-- model; what differs is memory, managed the way autograd does it: every
-- temporary is freed the moment it is used, and forward keeps only what
-- backward reads (the "saved tensors"). Attention keeps Q, K and V, not
-- the T x T probabilities: backward recomputes them, as FlashAttention
-- does (a T x T matrix per head per layer would not fit at T = 4096).
--
-- The memory this code holds is what labs/lib/fsdp/plan.lua counts: a
-- change here must be mirrored there (the attempt step checks the
-- measured peak against the plan).
local layer = {}

-- ctx = {dtype = "bf16"|"f32", phantom = bool}
local function new(ctx, shape, dtype)
  return mgpu.tensor{shape = shape, dtype = dtype or ctx.dtype, phantom = ctx.phantom}
end
layer.new = new

local function free(...)
  for i = 1, select("#", ...) do
    local t = select(i, ...)
    if t then t:free() end
  end
end
layer.free = free

local function dims(c, x)
  local s = x:shape()
  local b, t = s[1], s[2]
  local hd = c.dim // c.heads
  return b, t, b * t, hd, c.kv_heads * hd, c.heads // c.kv_heads
end

-- [B, T, H, hd] (tokens first) -> a new [B, H, T, hd] (heads first)
local function heads_first(ctx, x, b, t, h, hd)
  local y = new(ctx, {b, h, t, hd})
  mgpu.nn.swap12(x:view{b, t, h, hd}, y)
  return y
end

-- The attention probabilities P = softmax(mask(Q K^T) * scale): [B*Hkv, G*T, T].
local function probs(ctx, c, q, k, b, t, hd, g)
  local bk = b * c.kv_heads
  local s = new(ctx, {bk, g * t, t})
  mgpu.nn.gemm(q:view{bk, g * t, hd}, k:view{bk, t, hd}, s, {tb = true})
  local p = new(ctx, {bk, g * t, t})
  mgpu.nn.softmax(s, p, {scale = 1 / math.sqrt(hd), causal = true})
  free(s)
  return p
end

-- One decoder layer forward: x [B, T, dim] -> y (new). Returns y and the
-- saved tensors; with keep = false (activation checkpointing) nothing is
-- kept and backward recomputes from x, which the caller keeps.
function layer.forward(ctx, c, W, x, keep)
  local b, t, n, hd, kvd, g = dims(c, x)
  local S = {}
  S.n1, S.r1 = new(ctx, {b, t, c.dim}), new(ctx, {n}, "f32")
  mgpu.nn.rmsnorm(x, W.attn_norm, S.n1, S.r1, {eps = 1e-6})
  local n1 = S.n1:view{n, c.dim}
  local qt, kt, vt = new(ctx, {n, c.dim}), new(ctx, {n, kvd}), new(ctx, {n, kvd})
  mgpu.nn.gemm(n1, W.wq, qt, {tb = true})
  mgpu.nn.gemm(n1, W.wk, kt, {tb = true})
  mgpu.nn.gemm(n1, W.wv, vt, {tb = true})
  S.q = heads_first(ctx, qt, b, t, c.heads, hd); free(qt)
  S.k = heads_first(ctx, kt, b, t, c.kv_heads, hd); free(kt)
  S.v = heads_first(ctx, vt, b, t, c.kv_heads, hd); free(vt)
  local bk = b * c.kv_heads
  local p = probs(ctx, c, S.q, S.k, b, t, hd, g)
  local o = new(ctx, {bk, g * t, hd})
  mgpu.nn.gemm(p, S.v:view{bk, t, hd}, o)
  free(p)
  S.ot = new(ctx, {b, t, c.heads, hd})
  mgpu.nn.swap12(o:view{b, c.heads, t, hd}, S.ot)
  free(o)
  local a = new(ctx, {n, c.dim})
  mgpu.nn.gemm(S.ot:view{n, c.dim}, W.wo, a, {tb = true})
  S.h = new(ctx, {b, t, c.dim})
  mgpu.nn.add(x, a:view{b, t, c.dim}, S.h)                          -- h = x + attn(norm(x))
  free(a)
  S.n2, S.r2 = new(ctx, {b, t, c.dim}), new(ctx, {n}, "f32")
  mgpu.nn.rmsnorm(S.h, W.mlp_norm, S.n2, S.r2, {eps = 1e-6})
  local n2 = S.n2:view{n, c.dim}
  S.g, S.u = new(ctx, {n, c.ffn}), new(ctx, {n, c.ffn})
  mgpu.nn.gemm(n2, W.gate, S.g, {tb = true})
  mgpu.nn.gemm(n2, W.up, S.u, {tb = true})
  S.hs = new(ctx, {n, c.ffn})
  mgpu.nn.swiglu(S.g, S.u, S.hs)
  local m = new(ctx, {n, c.dim})
  mgpu.nn.gemm(S.hs, W.down, m, {tb = true})
  local y = new(ctx, {b, t, c.dim})
  mgpu.nn.add(S.h, m:view{b, t, c.dim}, y)                          -- y = h + mlp(norm(h))
  free(m)
  if not keep then
    for _, v in pairs(S) do v:free() end
    return y, nil
  end
  return y, S
end

-- dW = dy^T x for a weight [out, in]: dy [n, out], x [n, in]
local function wgrad(dy, x, gw) mgpu.nn.gemm(dy, x, gw, {ta = true}) end

-- One decoder layer backward: frees the saved tensors S as it goes,
-- writes the weight gradients into G (views of the unit's flat gradient)
-- and returns dx (new). dy is the caller's.
function layer.backward(ctx, c, W, G, x, S, dy)
  local b, t, n, hd, kvd, g = dims(c, x)
  local bk = b * c.kv_heads
  local d = dy:view{n, c.dim}
  -- MLP: y = h + down(swiglu(gate(n2), up(n2)))
  wgrad(d, S.hs, G.down)
  local dhs = new(ctx, {n, c.ffn})
  mgpu.nn.gemm(d, W.down, dhs)
  free(S.hs)
  local dg, du = new(ctx, {n, c.ffn}), new(ctx, {n, c.ffn})
  mgpu.nn.swiglu_backward(S.g, S.u, dhs, dg, du)
  free(dhs, S.g, S.u)
  local n2 = S.n2:view{n, c.dim}
  wgrad(du, n2, G.up)
  local dn2 = new(ctx, {n, c.dim})
  mgpu.nn.gemm(du, W.up, dn2)
  wgrad(dg, n2, G.gate)
  local tmp = new(ctx, {n, c.dim})
  mgpu.nn.gemm(dg, W.gate, tmp)
  mgpu.nn.add(dn2, tmp, dn2)
  free(tmp, du, dg, S.n2)
  local dhn = new(ctx, {b, t, c.dim})
  mgpu.nn.rmsnorm_backward(S.h, W.mlp_norm, S.r2, dn2:view{b, t, c.dim}, dhn, G.mlp_norm)
  free(dn2, S.h, S.r2)
  local dh = new(ctx, {b, t, c.dim})
  mgpu.nn.add(dy, dhn, dh)                                          -- the residual
  free(dhn)
  -- attention: h = x + wo(attn(q, k, v))
  local dhv = dh:view{n, c.dim}
  wgrad(dhv, S.ot:view{n, c.dim}, G.wo)
  local dot = new(ctx, {n, c.dim})
  mgpu.nn.gemm(dhv, W.wo, dot)
  free(S.ot)
  local do4 = new(ctx, {b, c.heads, t, hd})
  mgpu.nn.swap12(dot:view{b, t, c.heads, hd}, do4)
  free(dot)
  local do3 = do4:view{bk, g * t, hd}
  local q3, k3, v3 = S.q:view{bk, g * t, hd}, S.k:view{bk, t, hd}, S.v:view{bk, t, hd}
  local p = probs(ctx, c, S.q, S.k, b, t, hd, g)                    -- recomputed, not kept
  local dp = new(ctx, {bk, g * t, t})
  mgpu.nn.gemm(do3, v3, dp, {tb = true})                            -- dP = dO V^T
  local dv = new(ctx, {b, c.kv_heads, t, hd})
  mgpu.nn.gemm(p, do3, dv:view{bk, t, hd}, {ta = true})             -- dV = P^T dO
  local ds = new(ctx, {bk, g * t, t})
  mgpu.nn.softmax_backward(p, dp, ds, {scale = 1 / math.sqrt(hd)})
  free(p, dp)
  local dq = new(ctx, {b, c.heads, t, hd})
  mgpu.nn.gemm(ds, k3, dq:view{bk, g * t, hd})                      -- dQ = dS K
  local dk = new(ctx, {b, c.kv_heads, t, hd})
  mgpu.nn.gemm(ds, q3, dk:view{bk, t, hd}, {ta = true})             -- dK = dS^T Q
  free(ds, do4, S.q, S.k, S.v)
  -- back to tokens first and through the projections (tf's order: v, k, q)
  local n1 = S.n1:view{n, c.dim}
  local dn1 = new(ctx, {n, c.dim})
  local function proj(dh4, h, w, gw, first)
    local tt = new(ctx, {b, t, h, hd})
    mgpu.nn.swap12(dh4, tt)
    local tv = tt:view{n, h * hd}
    wgrad(tv, n1, gw)
    if first then
      mgpu.nn.gemm(tv, w, dn1)
    else
      local part = new(ctx, {n, c.dim})
      mgpu.nn.gemm(tv, w, part)
      mgpu.nn.add(dn1, part, dn1)
      free(part)
    end
    free(tt, dh4)
  end
  proj(dv, c.kv_heads, W.wv, G.wv, true)
  proj(dk, c.kv_heads, W.wk, G.wk, false)
  proj(dq, c.heads, W.wq, G.wq, false)
  free(S.n1)
  local dxn = new(ctx, {b, t, c.dim})
  mgpu.nn.rmsnorm_backward(x, W.attn_norm, S.r1, dn1:view{b, t, c.dim}, dxn, G.attn_norm)
  free(dn1, S.r1)
  local dx = new(ctx, {b, t, c.dim})
  mgpu.nn.add(dh, dxn, dx)
  free(dxn, dh)
  return dx
end

--- The embedding and the head ----------------------------------------------

function layer.embed_forward(ctx, c, W, ids)
  local s = ids:shape()
  local y = new(ctx, {s[1], s[2], c.dim})
  mgpu.nn.embedding(ids, W.embed, y)
  return y
end

function layer.embed_backward(ctx, c, G, ids, dy)
  G.embed:fill(0)                                                   -- the backward accumulates rows
  mgpu.nn.embedding_backward(ids, dy, G.embed)
end

-- The head: final RMSNorm, the LM head and the fused cross-entropy.
-- Returns the loss tensor (f32 {mean, right}), dlogits and what backward
-- needs.
function layer.head_forward(ctx, c, W, x, labels)
  local b, t, n = dims(c, x)
  local S = {x = x}
  S.nx, S.r = new(ctx, {b, t, c.dim}), new(ctx, {n}, "f32")
  mgpu.nn.rmsnorm(x, W.norm, S.nx, S.r, {eps = 1e-6})
  local logits = new(ctx, {n, c.vocab})
  mgpu.nn.gemm(S.nx:view{n, c.dim}, W.lm_head, logits, {tb = true})
  local loss = mgpu.tensor{shape = {2}, dtype = "f32", phantom = ctx.phantom}
  S.dlogits = new(ctx, {n, c.vocab})
  mgpu.nn.cross_entropy(logits, labels, loss, S.dlogits)
  free(logits)
  return loss, S
end

function layer.head_backward(ctx, c, W, G, S)
  local b, t, n = dims(c, S.x)
  wgrad(S.dlogits, S.nx:view{n, c.dim}, G.lm_head)
  local dnx = new(ctx, {n, c.dim})
  mgpu.nn.gemm(S.dlogits, W.lm_head, dnx)
  free(S.dlogits, S.nx)
  local dx = new(ctx, {b, t, c.dim})
  mgpu.nn.rmsnorm_backward(S.x, W.norm, S.r, dnx:view{b, t, c.dim}, dx, G.norm)
  free(dnx, S.r)
  return dx
end

return layer
