-- labs/lib/nn/sp.lua - lab 11's harness for Megatron's sequence
-- parallelism: lab 6's tensor-parallel layer (labs/lib/tp) with the
-- learner's operators, on one TP group of 4 ranks.
--   local sp = mgpu.import("nn.sp")
--   sp.run{ops = {F =, G =, mlp_forward =, ..., sync_grads =}, args = mgpu.args}
--
-- With sequence parallelism a rank holds a quarter of the sequence outside
-- the TP blocks (the norms, the residual adds): the layer's input and output
-- are [1, T/4, dim], this rank's tokens (rank r: rows r*T/4 .. (r+1)*T/4-1).
-- The operators around a block change: what enters the column-parallel
-- layers must be the whole sequence, what leaves the row-parallel one is
-- this rank's partial sums of every token.
--
-- The run: the unsharded layers on the whole sequence (the reference); the
-- same layers with lab 6's TP operators (all-reduces, every rank the whole
-- sequence); then with the learner's. Each is a fresh model, so the growth
-- of the allocator's `allocated` across its first forward is what that
-- forward keeps (activations; the modules' buffers), and the harness splits
-- it into what the TP blocks keep (inside attention_forward / mlp_forward)
-- and what the layer keeps outside them. The collectives are counted from
-- the TP communicator's flight recorder, not by the learner's code.
local nn = mgpu.import("nn")
local tp = mgpu.import("tp")
local sp = {}

local T, DIM, HEADS, KV, HIDDEN, LAYERS = 256, 64, 8, 4, 256, 2
sp.SHAPE = {seq = T, dim = DIM, heads = HEADS, kv_heads = KV, hidden = HIDDEN, layers = LAYERS}

local function fail(fmt, ...) error(string.format(fmt, ...), 0) end

--- Lab 6's operators: the TP baseline ------------------------------------

local F = {}
F.__index = F
function F.new(comm) return setmetatable({comm = comm}, F) end
function F:forward(x) return x end
function F:backward(dx) self.comm:all_reduce(dx, "sum"); return dx end
local G = {}
G.__index = G
function G.new(comm) return setmetatable({comm = comm}, G) end
function G:forward(y) self.comm:all_reduce(y, "sum"); return y end
function G:backward(dy) return dy end

sp.tp_ops = {
  F = F, G = G,
  mlp_forward = function(m, x) return m.g:forward(m.fc2:forward(m.act:forward(m.fc1:forward(m.f:forward(x))))) end,
  mlp_backward = function(m, dy, ready)
    return m.f:backward(m.fc1:backward(m.act:backward(m.fc2:backward(m.g:backward(dy), ready)), ready))
  end,
  attention_forward = function(a, x) return a.g:forward(a.core:forward(a.f:forward(x))) end,
  attention_backward = function(a, dy, ready) return a.f:backward(a.core:backward(a.g:backward(dy), ready)) end,
  sync_grads = function() end,      -- one TP group, no DP: every gradient is already whole
}

--- Counting --------------------------------------------------------------------

local function mark(c)
  local e = c:flight(1)
  return e[1] and e[1].seq or 0
end

local function calls(c, from, to)
  local by, n = {}, 0
  for _, e in ipairs(c:flight(4096)) do
    if e.seq > from and e.seq <= to then
      by[e.op] = (by[e.op] or 0) + 1
      n = n + 1
    end
  end
  if to - from > n then n = to - from end
  return {n = n, by = by}
end

local function allocated() return mgpu.memory_stats().allocated end

local function shape_text(t) return type(t) == "userdata" and table.concat(t:shape(), ", ") or tostring(t) end

-- The learner's operator class with each direction's result checked: what
-- F's forward gives the block must be every token, what its backward gives
-- back is this rank's share; G the other way round.
local SAYS = {
  ["F:forward"] = "the block's column-parallel layers need every token of the sequence",
  ["F:backward"] = "the gradient of the layer's input is this rank's share of the sequence",
  ["G:forward"] = "the layer goes on with this rank's share of the sequence",
  ["G:backward"] = "the block's backward needs the gradient of every token",
}
local function checked(cls, name, fwd_rows, bwd_rows)
  return {new = function(comm)
    local inner = cls.new(comm)
    local o = {}
    local function check(t, dir, rows)
      local what = name .. ":" .. dir
      if type(t) ~= "userdata" or t:count() ~= rows * DIM or t:shape()[2] ~= rows then
        fail("%s returned [%s]: %s, [1, %d, %d]", what, shape_text(t), SAYS[what], rows, DIM)
      end
      return t
    end
    function o:forward(x) return check(inner:forward(x), "forward", fwd_rows) end
    function o:backward(d) return check(inner:backward(d), "backward", bwd_rows) end
    return o
  end}
end

-- ops with its operators checked and its blocks' forwards wrapped: the
-- bytes the blocks' forwards allocate, and the shape a block hands back.
local function measured(ops, want_rows, meter)
  local o = {}
  for k, v in pairs(ops) do o[k] = v end
  o.F = checked(ops.F, "F", T, want_rows)
  o.G = checked(ops.G, "G", want_rows, T)
  local function wrap(name)
    local f = ops[name]
    o[name] = function(blk, x)
      local before = allocated()
      local y = f(blk, x)
      meter.inside = meter.inside + (allocated() - before)
      if type(y) ~= "userdata" then fail("%s returned %s, not a tensor", name, tostring(y)) end
      local s = y:shape()
      if s[2] ~= want_rows or y:count() ~= want_rows * DIM then
        fail("%s returned a [%s] tensor; the layer adds it to its input, [1, %d, %d]: this rank's share of the "
             .. "sequence", name, table.concat(s, ", "), want_rows, DIM)
      end
      return y
    end
  end
  wrap("attention_forward")
  wrap("mlp_forward")
  return o
end

local function check_ops(ops)
  for _, k in ipairs{"F", "G", "mlp_forward", "mlp_backward", "attention_forward", "attention_backward", "sync_grads"} do
    if ops[k] == nil then fail("sp.lua: ops.%s is missing", k) end
  end
end

-- One run of the sharded layers: rows = the tokens this rank holds outside
-- the blocks (T with TP, T/4 with SP), first = the first of them.
local function run_sharded(ops, comm, ref, x, dy, rows, first)
  local meter = {inside = 0}
  local wrapped = measured(ops, rows, meter)
  local m = tp.model{ops = wrapped, part = comm:rank(), parts = comm:size(), comm = comm, full = ref,
                     heads = HEADS, kv_heads = KV, hidden = HIDDEN, dim = DIM, layers = LAYERS}
  local params = m:parameters()
  local xl, dyl = nn.empty({1, rows, DIM}), nn.empty({1, rows, DIM})
  mgpu.copy(xl, x:view{T, DIM}:slice(first, rows))
  mgpu.copy(dyl, dy:view{T, DIM}:slice(first, rows))
  local marks = {mark(comm)}
  collectgarbage("collect")                      -- no garbage of before freed during the forward
  local before = allocated()
  local y = m:forward(xl)
  local kept = allocated() - before
  marks[2] = mark(comm)
  local dx = m:backward(dyl)
  marks[3] = mark(comm)
  ops.sync_grads(params, {tp = comm, world = comm, tp_rank = comm:rank(), tp_size = comm:size()})
  marks[4] = mark(comm)
  return {y = y, dx = dx, params = params, kept = kept, inside = meter.inside, outside = kept - meter.inside,
          fwd = calls(comm, marks[1], marks[2]), bwd = calls(comm, marks[2], marks[3]),
          sync = calls(comm, marks[3], marks[4])}
end

function sp.run(o)
  local ops = o.ops
  check_ops(ops)
  local P = 4
  if mgpu.world ~= P then fail("lab 11's sequence parallelism runs one TP group of %d ranks, not %d", P, mgpu.world) end
  local comm = mgpu.comm()
  local rows = T // P
  local first = comm:rank() * rows
  -- the reference: unsharded, the whole sequence; loss = <y, R>, dy = R
  local ref = tp.model{ops = tp.serial, heads = HEADS, kv_heads = KV, hidden = HIDDEN, dim = DIM, layers = LAYERS}
  local x = nn.empty({1, T, DIM}):fill{seed = 11}
  local dy = nn.empty({1, T, DIM}):fill{seed = 12}
  local y_ref = ref:forward(x)
  local dx_ref = ref:backward(dy)
  local ref_params = ref:parameters()

  local base = run_sharded(sp.tp_ops, comm, ref, x, dy, T, 0)
  local mine = run_sharded(ops, comm, ref, x, dy, rows, first)

  local RT, AT = 1e-4, 1e-5
  local out = {rank = comm:rank(), rows = rows, seq = T, layers = LAYERS, rtol = RT, atol = AT}
  local function cmp(a, b)
    local bad, err = a:compare(b, RT, AT)
    return {bad = bad, err = err, count = a:count()}
  end
  out.fwd = cmp(mine.y, y_ref:view{T, DIM}:slice(first, rows))
  out.dx = cmp(mine.dx, dx_ref:view{T, DIM}:slice(first, rows))
  local nbad, worst, norm_bad, other = 0, nil, nil, 0
  for i, p in ipairs(mine.params) do
    local want = tp.slice_of(ref_params[i].grad, p, comm:rank(), P)
    local bad, err = p.grad:compare(want, RT, AT)
    if bad > 0 then
      nbad = nbad + 1
      -- how many times the right gradient it is (a sum where an average
      -- was wanted reads 4x, a rank's own share about 0.25x)
      local a, b = p.grad:to_table(), want:to_table()
      local ab, bb = 0, 0
      for k = 1, #b do ab = ab + a[k] * b[k]; bb = bb + b[k] * b[k] end
      local w = {name = p.name, bad = bad, err = err, count = p.grad:count(), ratio = bb > 0 and ab / bb or nil,
                 norm = p.shard == nil}
      if w.norm and not norm_bad then norm_bad = w end
      if not w.norm then other = other + 1 end
      if not worst or err > worst.err then worst = w end
    end
  end
  out.grads = {bad = nbad, worst = worst, norm = norm_bad, other = other, params = #mine.params}
  out.calls = {fwd = mine.fwd, bwd = mine.bwd, sync = mine.sync}
  out.tp_calls = {fwd = base.fwd, bwd = base.bwd}
  out.mem = {tp = {kept = base.kept, inside = base.inside, outside = base.outside},
             sp = {kept = mine.kept, inside = mine.inside, outside = mine.outside}}
  mgpu.result(out)
end

return sp
