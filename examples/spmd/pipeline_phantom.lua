-- pipeline_phantom.lua - one training step of a Llama-shaped model under
-- DP x TP x PP, every rank a process, every tensor phantom (shapes only:
-- the ops take their modelled time on the sim and compute nothing). The
-- full multi-process run that `mgpulab whatif` (engine/whatif) simulates
-- in one process; tests/cli/whatif_agree.sh holds the two within 5 %.
--
--   mgpulab spmd examples/spmd/pipeline_phantom.lua --backend sim --machine dgx-h100 --ranks 8 \
--       -- dp=2 tp=2 pp=2 m=4 layers=4
--
-- Ranks as Megatron numbers them: TP fastest, then DP, then PP. Per layer
-- (Megatron's sharding): RMSNorm; Q, K, V column-parallel; attention over
-- this rank's heads (S = QK^T, causal softmax, O = PV); the row-parallel
-- output projection, all-reduced in the TP group; the residual; RMSNorm;
-- SwiGLU gate/up column-parallel, down row-parallel, all-reduced; the
-- residual. Backward mirrors it (two more TP all-reduces). The pipeline is
-- Megatron's 1F1B (send_forward_recv_backward as one NCCL group); then the
-- gradients are all-reduced in the DP group and AdamW steps. Everything is
-- on the default stream, as a plain Megatron rank without overlap.

local cfg = {dp = 2, tp = 2, pp = 2, m = 4, mbs = 1, layers = 4, hidden = 8192, ffn = 28672, heads = 64,
             kv_heads = 8, vocab = 32000, seq = 4096, recompute = 0}
for _, a in ipairs(mgpu.args) do
  local k, v = a:match("^([%w_]+)=(%d+)$")
  if not k or cfg[k] == nil then error("pipeline_phantom: bad argument '" .. a .. "' (want NAME=INTEGER, names: dp tp pp m mbs layers hidden ffn heads kv_heads vocab seq recompute)") end
  cfg[k] = math.tointeger(tonumber(v))
end
local dp, tp, pp, m = cfg.dp, cfg.tp, cfg.pp, cfg.m
if mgpu.world ~= dp * tp * pp then
  error(("pipeline_phantom: dp %d x tp %d x pp %d = %d ranks, but %d are running"):format(dp, tp, pp, dp * tp * pp, mgpu.world))
end
assert(cfg.layers % pp == 0 and cfg.heads % tp == 0 and cfg.ffn % tp == 0 and cfg.vocab % tp == 0)

local tp_rank, dp_rank, stage = mgpu.rank % tp, (mgpu.rank // tp) % dp, mgpu.rank // (tp * dp)
local world = mgpu.comm()
local tp_comm = world:split(stage * dp + dp_rank, tp_rank)
local dp_comm = world:split(stage * tp + tp_rank, dp_rank)
local pp_comm = world:split(dp_rank * tp + tp_rank, stage)
local first, last = stage == 0, stage == pp - 1

-- This rank's shapes.
local b, s, h = cfg.mbs, cfg.seq, cfg.hidden
local T, d = b * s, h // cfg.heads
local a = cfg.heads // tp
local g = cfg.kv_heads >= tp and cfg.kv_heads // tp or 1
local G, f, v, bk = a // g, cfg.ffn // tp, cfg.vocab // tp, b * g
local L = cfg.layers // pp

local function P(shape, dtype) return mgpu.tensor{shape = shape, dtype = dtype or "bf16", phantom = true} end

-- One layer's weights and gradients stand for all of this stage's (phantom:
-- no values to keep apart); its activations are reused the same way.
local W = {q = P{h, a * d}, k = P{h, g * d}, v = P{h, g * d}, o = P{a * d, h}, gate = P{h, f}, up = P{h, f},
           down = P{f, h}, n1 = P{h}, n2 = P{h}}
local dW = {}
for k, t in pairs(W) do dW[k] = P(t:shape()) end
local x, n1, rstd1 = P{T, h}, P{T, h}, P({T}, "f32")
local q, k, vv = P{T, a * d}, P{T, g * d}, P{T, g * d}
local qh, kh, vh = P{b, a, s, d}, P{b, g, s, d}, P{b, g, s, d}
local scores, prob, o, ot = P{bk, G * s, s}, P{bk, G * s, s}, P{bk, G * s, d}, P{b, s, a, d}
local attn, h1, n2, rstd2 = P{T, h}, P{T, h}, P{T, h}, P({T}, "f32")
local gate, up, sw, mlp, y = P{T, f}, P{T, f}, P{T, f}, P{T, h}, P{T, h}
local dy, dx, dn, dsw, dg, du = P{T, h}, P{T, h}, P{T, h}, P{T, f}, P{T, f}, P{T, f}
local dot, do4, dprob, ds = P{T, a * d}, P{b, a, s, d}, P{bk, G * s, s}, P{bk, G * s, s}
local dq, dk, dv = P{b, a, s, d}, P{b, g, s, d}, P{b, g, s, d}
local dqt, dkt, dvt = P{b, s, a, d}, P{b, s, g, d}, P{b, s, g, d}
local scale = 1 / math.sqrt(d)
local nn = mgpu.nn

local function tp_all_reduce(t) if tp > 1 then tp_comm:all_reduce(t) end end

local function layer_forward()
  nn.rmsnorm(x, W.n1, n1, rstd1)
  nn.gemm(n1, W.q, q); nn.gemm(n1, W.k, k); nn.gemm(n1, W.v, vv)
  nn.swap12(q:view{b, s, a, d}, qh); nn.swap12(k:view{b, s, g, d}, kh); nn.swap12(vv:view{b, s, g, d}, vh)
  local q3, k3, v3 = qh:view{bk, G * s, d}, kh:view{bk, s, d}, vh:view{bk, s, d}
  nn.gemm(q3, k3, scores, {tb = true})
  nn.softmax(scores, prob, {scale = scale, causal = true})
  nn.gemm(prob, v3, o)
  nn.swap12(o:view{b, a, s, d}, ot)
  nn.gemm(ot:view{T, a * d}, W.o, attn)
  tp_all_reduce(attn)
  nn.add(x, attn, h1)
  nn.rmsnorm(h1, W.n2, n2, rstd2)
  nn.gemm(n2, W.gate, gate); nn.gemm(n2, W.up, up)
  nn.swiglu(gate, up, sw)
  nn.gemm(sw, W.down, mlp)
  tp_all_reduce(mlp)
  nn.add(h1, mlp, y)
end

-- x W's backward: dx (accumulated when acc) and dW += x^T dy.
local function linear_backward(xin, w, dw, dyy, dxx, acc)
  nn.gemm(dyy, w, dxx, {tb = true, beta = acc and 1 or 0})
  nn.gemm(xin, dyy, dw, {ta = true, beta = 1})
end

local function layer_backward()
  linear_backward(sw, W.down, dW.down, dy, dsw)
  nn.swiglu_backward(gate, up, dsw, dg, du)
  linear_backward(n2, W.up, dW.up, du, dn)
  linear_backward(n2, W.gate, dW.gate, dg, dn, true)
  tp_all_reduce(dn)
  nn.rmsnorm_backward(h1, W.n2, rstd2, dn, dx, dW.n2)
  nn.add(dy, dx, dx)                                        -- d h1
  linear_backward(ot:view{T, a * d}, W.o, dW.o, dx, dot)
  nn.swap12(dot:view{b, s, a, d}, do4)
  local do3, q3, k3, v3 = do4:view{bk, G * s, d}, qh:view{bk, G * s, d}, kh:view{bk, s, d}, vh:view{bk, s, d}
  nn.gemm(do3, v3, dprob, {tb = true})
  nn.gemm(prob, do3, dv:view{bk, s, d}, {ta = true})
  nn.softmax_backward(prob, dprob, ds, {scale = scale})
  nn.gemm(ds, k3, dq:view{bk, G * s, d})
  nn.gemm(ds, q3, dk:view{bk, s, d}, {ta = true})
  nn.swap12(dv, dvt); nn.swap12(dk, dkt); nn.swap12(dq, dqt)
  linear_backward(n1, W.q, dW.q, dqt:view{T, a * d}, dn)
  linear_backward(n1, W.k, dW.k, dkt:view{T, g * d}, dn, true)
  linear_backward(n1, W.v, dW.v, dvt:view{T, g * d}, dn, true)
  tp_all_reduce(dn)
  nn.rmsnorm_backward(x, W.n1, rstd1, dn, dx, dW.n1)
  nn.add(dx, dy, dy)                                        -- d x, the next layer's dy
end

-- The stage's ends: the vocabulary-parallel embedding; the final norm, LM
-- head and loss.
local ids, labels = P({b, s}, "i32"), P({T}, "i32")
local emb, demb = P{v, h}, P{v, h}
local hn, rstdf, normw, dnormw = P{T, h}, P({T}, "f32"), P{h}, P{h}
local head, dhead, logits, dlogits, loss = P{h, v}, P{h, v}, P{T, v}, P{T, v}, P({2}, "f32")

local function forward()
  if first then
    nn.embedding(ids, emb, x:view{b, s, h})
    tp_all_reduce(x)
  end
  for _ = 1, L do layer_forward() end
  if last then
    nn.rmsnorm(y, normw, hn, rstdf)
    nn.gemm(hn, head, logits)
    nn.cross_entropy(logits, labels, loss, dlogits)
  end
end

local function backward()
  if last then
    linear_backward(hn, head, dhead, dlogits, dn)
    tp_all_reduce(dn)
    nn.rmsnorm_backward(y, normw, rstdf, dn, dy, dnormw)
  end
  for _ = 1, L do
    if cfg.recompute == 1 then layer_forward() end       -- full recomputation: the layer's forward again
    layer_backward()
  end
  if first then nn.embedding_backward(ids, dy:view{b, s, h}, demb) end
end

-- Pipeline transfers: the activation up, its gradient down ([b, s, h] bf16).
local act_out, act_in, grad_out, grad_in = P{T, h}, P{T, h}, P{T, h}, P{T, h}
local function xfer(send_to, send_t, recv_from, recv_t)
  if send_to and recv_from then
    mgpu.group(function() pp_comm:send(send_t, send_to); pp_comm:recv(recv_t, recv_from) end)
  elseif send_to then pp_comm:send(send_t, send_to)
  elseif recv_from then pp_comm:recv(recv_t, recv_from) end
end
local up_peer, down_peer = (not last) and stage + 1 or nil, (not first) and stage - 1 or nil

-- The parameters of this rank (the optimizer and DP see them as one buffer).
local layer_params = h * d * (2 * a + 2 * g) + 3 * h * f + 2 * h
local nparams = L * layer_params + (first and v * h or 0) + (last and (h + v * h) or 0)
local grads, params = P({nparams}), P({nparams})
local m1, m2 = P({nparams}, "f32"), P({nparams}, "f32")

world:barrier()
local t0, t1 = mgpu.event{timing = true}, mgpu.event{timing = true}
t0:record()
-- Megatron's forward_backward_pipelining_without_interleaving.
local warm = math.min(pp - stage - 1, m)
local rest = m - warm
for _ = 1, warm do
  xfer(nil, nil, down_peer, act_in)
  forward()
  xfer(up_peer, act_out, nil, nil)
end
if rest > 0 then xfer(nil, nil, down_peer, act_in) end
for i = 1, rest do
  forward()
  xfer(up_peer, act_out, up_peer, grad_in)          -- send_forward_recv_backward
  backward()
  if i == rest then xfer(down_peer, grad_out, nil, nil)
  else xfer(down_peer, grad_out, down_peer, act_in) end -- send_backward_recv_forward
end
for _ = 1, warm do
  xfer(nil, nil, up_peer, grad_in)
  backward()
  xfer(down_peer, grad_out, nil, nil)
end
if dp > 1 then dp_comm:all_reduce(grads) end
nn.adamw(params, grads, m1, m2, {lr = 1e-4, step = 1})
t1:record()
t1:synchronize()
local ms = t0:elapsed(t1)

local worst = mgpu.tensor(1, "f32")
worst:set(0, ms)
world:all_reduce(worst, worst, "max")
local step_ms = worst:get(0)
if mgpu.rank == 0 then
  print(("DP %d x TP %d x PP %d, %d micro-batches, %d layers: one step %.3f ms (modelled, slowest rank)"):format(
    dp, tp, pp, m, cfg.layers, step_ms))
end
mgpu.result{rank_ms = ms, step_ms = step_ms, stage = stage}
