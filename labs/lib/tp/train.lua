-- labs/lib/tp/train.lua - lab 6's harness for the learner's Megatron
-- operators (step 2's megatron.lua calls train.run{ops =, args = mgpu.args}).
-- 8 ranks as 4 TP x 2 DP; the groups are tp.groups' (step 1's layout).
--
-- args[1] = "check": a 2-layer model small enough to compute (f32, real
--   values). Every rank builds the UNSHARDED model on the global batch (the
--   reference) and the sharded one on its DP shard (values sliced from the
--   reference), runs forward, backward and ops.sync_grads, and compares:
--   its output with the reference's rows, its input gradient, and every
--   parameter gradient with the same slice of the reference gradient. The
--   collectives are counted from the communicators' flight recorders (not
--   by the learner's code): per communicator, in forward, in backward and
--   in the gradient sync. Before the model, f and g are tried alone in
--   each direction (what each gives: identity, the TP group's sum or mean),
--   and the output's and input gradient's checksums are reported: a TP
--   group's ranks must agree on each.
-- args[1] = "time", args[2] = order ("tp-dp": TP groups of neighbours,
--   "dp-tp": TP groups of ranks 2 apart): a 2-layer model of Llama-2-70B's
--   layer shapes (hidden 8192, 64 heads, 8 KV heads, SwiGLU MLP of 28672),
--   bf16, 8 micro-batches of 4096 tokens per step with gradient
--   accumulation, then one gradient sync. Phantom (shape-only) on the sim:
--   only the modelled time. Rank 0 reports the step time (events, median of
--   the steps after the first) and, timed alone, one TP all-reduce of a
--   layer's activations and one DP all-reduce of all gradients.
--
-- ops (the learner's): F, G, mlp_forward, mlp_backward, attention_forward,
-- attention_backward (labs/lib/tp/init.lua says what each gets) and
-- sync_grads(params, groups).
local nn = mgpu.import("nn")
local tp = mgpu.import("tp")

local train = {}
local TP = 4

-- The newest collective's sequence number on a communicator (0: none yet).
local function mark(c)
  local e = c:flight(1)
  return e[1] and e[1].seq or 0
end

-- Collectives on c with from < seq <= to: {all_reduce = n, ...}, n total,
-- and the element counts of the all-reduces (a list).
local function calls(c, from, to)
  local by, n, counts = {}, 0, {}
  for _, e in ipairs(c:flight(4096)) do
    if e.seq > from and e.seq <= to then
      by[e.op] = (by[e.op] or 0) + 1
      n = n + 1
      if e.op == "all_reduce" then counts[#counts + 1] = e.count end
    end
  end
  -- the ring holds the newest entries only: what fell out still counts
  if to - from > n then n = to - from end
  return {n = n, by = by, counts = counts}
end

local function window(c, marks)
  return { fwd = calls(c, marks[1], marks[2]), bwd = calls(c, marks[2], marks[3]), sync = calls(c, marks[3], marks[4]) }
end

local function check_ops(ops)
  for _, k in ipairs{"F", "G", "mlp_forward", "mlp_backward", "attention_forward", "attention_backward", "sync_grads"} do
    if ops[k] == nil then error("megatron.lua: ops." .. k .. " is missing", 0) end
  end
end

local function need_ranks()
  if mgpu.world ~= 2 * TP then
    error(("lab 6 runs 4 TP x 2 DP on 8 ranks, not %d"):format(mgpu.world), 0)
  end
end

-- max |a - b| over the elements and how many exceed rtol/atol
local function cmp(a, b, rtol, atol)
  local bad, err = a:compare(b, rtol, atol)
  return {bad = bad, err = err}
end

-- What a tensor became, against the input it started as (`was`) and the
-- input summed over the TP group (`sum`): "identity", "sum", "mean" (the
-- sum / the group's size: an "avg" all-reduce) or "other".
local function what_it_is(t, was, sum, size)
  if t == nil or type(t) ~= "userdata" then return "no tensor" end
  if t:count() ~= was:count() then return "another shape" end
  local RT, AT = 1e-5, 1e-6
  if t:compare(sum, RT, AT) == 0 then return "sum" end
  if t:compare(was, RT, AT) == 0 then return "identity" end
  local mean = nn.empty(was:shape())
  mgpu.nn.add(sum, sum, mean, {alpha = 1 / size, beta = 0})
  if t:compare(mean, RT, AT) == 0 then return "mean" end
  return "other"
end

-- The learner's f and g, each tried alone in each direction on a tensor
-- that differs from rank to rank (so an identity and an all-reduce give
-- different results): {f = {fwd =, bwd =}, g = {fwd =, bwd =}} of
-- what_it_is, and the collectives each made on the TP communicator.
local function probe_ops(ops, g)
  local out = {}
  for _, name in ipairs{"F", "G"} do
    local op = ops[name].new(g.tp)
    local r = {}
    for _, dir in ipairs{"forward", "backward"} do
      local was = nn.empty({2, 3, 4}):fill{seed = 40 + mgpu.rank}
      local sum = nn.empty({2, 3, 4})
      mgpu.copy(sum, was)
      g.tp:all_reduce(sum, "sum")
      local t = nn.empty({2, 3, 4})
      mgpu.copy(t, was)
      local before = mark(g.tp)
      local ok, got = pcall(op[dir], op, t)
      if not ok then error(("megatron.lua: %s:%s: %s"):format(name, dir, tostring(got)), 0) end
      r[dir] = what_it_is(got, was, sum, g.tp_size)
      r[dir .. "_calls"] = mark(g.tp) - before
    end
    out[name] = r
  end
  return out
end

-- Σ a·b / Σ b·b over two small tensors: how many times b is a (2.0: a
-- gradient summed where it should have been averaged).
local function ratio(a, b)
  local x, y = a:to_table(), b:to_table()
  local ab, bb = 0, 0
  for i = 1, #y do ab = ab + x[i] * y[i]; bb = bb + y[i] * y[i] end
  return bb > 0 and ab / bb or nil
end

local function run_check(ops, g)
  local B, T, DIM, HEADS, KV, HIDDEN, LAYERS = 4, 8, 64, 8, 4, 256, 2
  local Bl = B // g.dp_size
  local shape = {heads = HEADS, kv_heads = KV, hidden = HIDDEN, dim = DIM, layers = LAYERS}
  local function model(o)
    for k, v in pairs(shape) do o[k] = v end
    return tp.model(o)
  end
  -- the reference: unsharded, the whole global batch, loss = mean over the
  -- batch of <y, R>: dy = R / B
  local ref = model{ops = tp.serial}
  local x = nn.empty({B, T, DIM}):fill{seed = 11}
  local r = nn.empty({B, T, DIM}):fill{seed = 12}
  local dy = nn.empty({B, T, DIM})
  mgpu.nn.add(r, r, dy, {alpha = 1 / B, beta = 0})
  local y_ref = ref:forward(x)
  local dx_ref = ref:backward(dy)
  local ref_params = ref:parameters()

  -- this rank: its TP shard of the model, its DP shard of the batch
  local m = model{ops = ops, part = g.tp_rank, parts = g.tp_size, comm = g.tp, full = ref}
  local params = m:parameters()
  local xl = x:slice(g.dp_rank * Bl, Bl)
  local dyl = nn.empty({Bl, T, DIM})
  mgpu.nn.add(r:slice(g.dp_rank * Bl, Bl), r:slice(g.dp_rank * Bl, Bl), dyl, {alpha = 1 / Bl, beta = 0})

  local probed = probe_ops(ops, g)
  local comms = {tp = g.tp, dp = g.dp, world = g.world}
  local marks = {tp = {}, dp = {}, world = {}}
  local function stamp() for k, c in pairs(comms) do marks[k][#marks[k] + 1] = mark(c) end end
  stamp()
  local y = m:forward(xl)
  stamp()
  local dx = m:backward(dyl)
  stamp()
  ops.sync_grads(params, g)
  stamp()

  local RT, AT = 1e-3, 1e-5
  local out = {rank = mgpu.rank, tp_rank = g.tp_rank, dp_rank = g.dp_rank, rtol = RT, atol = AT,
               act_count = Bl * T * DIM, params = #params}
  out.ops = probed
  out.fwd = cmp(y, y_ref:slice(g.dp_rank * Bl, Bl), RT, AT)
  out.y_sum = ("%016x"):format(y:checksum())            -- the TP group's ranks must agree on it
  -- the shard's input gradient is its rows of the reference's, times B/Bl
  -- (the shard's loss averages over its Bl rows, not all B)
  local dx_want = nn.empty({Bl, T, DIM})
  mgpu.nn.add(dx_ref:slice(g.dp_rank * Bl, Bl), dx_ref:slice(g.dp_rank * Bl, Bl), dx_want, {alpha = B / Bl, beta = 0})
  out.dx = cmp(dx, dx_want, RT, AT)
  out.dx_sum = ("%016x"):format(dx:checksum())
  local nbad, worst = 0, nil
  for i, p in ipairs(params) do
    local want = tp.slice_of(ref_params[i].grad, p, g.tp_rank, g.tp_size)
    local c = cmp(p.grad, want, RT, AT)
    if c.bad > 0 then
      nbad = nbad + 1
      if not worst or c.err > worst.err then
        worst = {name = p.name, bad = c.bad, err = c.err, count = p.grad:count(), ratio = ratio(p.grad, want)}
      end
    end
  end
  out.grads = {bad = nbad, worst = worst}
  out.calls = {}
  for k, c in pairs(comms) do out.calls[k] = window(c, marks[k]) end
  mgpu.result(out)
end

-- The timed model: micro-batches with gradient accumulation, then the sync.
local function run_time(ops, g, steps)
  local DIM, HEADS, KV, HIDDEN, LAYERS, T, MICRO = 8192, 64, 8, 28672, 2, 4096, 8
  nn.phantom = mgpu.simulated
  local m = tp.model{ops = ops, part = g.tp_rank, parts = g.tp_size, comm = g.tp, dtype = "bf16",
                     dim = DIM, heads = HEADS, kv_heads = KV, hidden = HIDDEN, layers = LAYERS, mlp = "swiglu"}
  local params = m:parameters()
  local x = nn.empty({1, T, DIM}, "bf16"):fill{seed = 1 + g.dp_rank}
  local dy = nn.empty({1, T, DIM}, "bf16"):fill{seed = 2 + g.dp_rank}
  -- the accumulated gradients the sync sees: {name, value, grad = sum}
  local acc, elems = {}, 0
  for i, p in ipairs(params) do
    acc[i] = {name = p.name, value = p.value, grad = nn.empty(p.grad:shape(), "bf16"), shard = p.shard, bias = p.bias}
    elems = elems + p.grad:count()
  end
  local function ev() local e = mgpu.event{timing = true}; e:record(mgpu.default_stream()); return e end
  local times, tp_calls = {}, nil
  for s = 1, steps do
    local before = mark(g.tp)
    local a = ev()
    for mb = 1, MICRO do
      m:forward(x)
      m:backward(dy)
      for i, p in ipairs(params) do mgpu.nn.add(acc[i].grad, p.grad, acc[i].grad, {beta = mb > 1 and 1 or 0}) end
    end
    ops.sync_grads(acc, g)
    local b = ev()
    b:synchronize()
    if s > 1 then times[#times + 1] = a:elapsed(b) end
    tp_calls = mark(g.tp) - before
  end
  -- one TP all-reduce of a micro-batch's activations, one DP all-reduce of
  -- every gradient, each on its own
  local act = nn.empty({1, T, DIM}, "bf16"):fill(0)
  local a, b = ev(), nil
  for _ = 1, 3 do g.tp:all_reduce(act, "sum") end
  b = ev(); b:synchronize()
  local tp_ms = a:elapsed(b) / 3
  local flat = nn.empty({elems}, "bf16"):fill(0)
  a = ev(); g.dp:all_reduce(flat, "avg"); b = ev(); b:synchronize()
  local dp_ms = a:elapsed(b)
  local tps, dps = tp.members(mgpu.rank, mgpu.world, g.tp_size, g.order)
  mgpu.result{rank = mgpu.rank, order = g.order, step_ms = nn.median(times), tp_ms = tp_ms, dp_ms = dp_ms,
              tp_calls = tp_calls, micro = MICRO, layers = LAYERS, act_bytes = act:bytes(), grad_bytes = flat:bytes(),
              tp_group = table.concat(tps, ","), dp_group = table.concat(dps, ","), tokens = MICRO * T}
end

function train.run(opts)
  local ops, args = opts.ops, opts.args or {}
  check_ops(ops)
  need_ranks()
  local mode = args[1] or "check"
  local order = args[2] or "tp-dp"
  local g = tp.groups(mgpu.comm(), TP, order)
  if mode == "check" then return run_check(ops, g) end
  if mode == "time" then return run_time(ops, g, math.tointeger(tonumber(args[3] or "")) or 3) end
  error("tp.train: mode '" .. tostring(mode) .. "' is neither check nor time", 0)
end

return train
