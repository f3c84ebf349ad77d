-- coll/harness.lua - lab 10's test bench for the learner's collectives
-- (labs/10-collectives/exercises/ring.lua). The learner's functions get a
-- communicator of their own (a split of the world), so that its flight
-- recorder holds their calls and nothing else; the references (comm:all_reduce
-- of the same data) run on the world communicator. Each rank reports what it
-- saw as result rows; lab.lua judges them.
--
-- mgpu.args: MODE COUNT
--   rs, ag, ar   the learner's reduce_scatter / all_gather / all_reduce on
--                COUNT f32 elements (COUNT need not be a multiple of the ranks)
--   rd           the learner's doubling (recursive doubling) given the whole
--                buffer, checked as ar
--   time         the learner's all_reduce and comm:all_reduce on COUNT phantom
--                elements, timed by events on the modelled clock
--   sweep        the learner's all_reduce on phantom buffers of n, 4n, ...
--                64 Mi elements (args[3] = "whole": the whole buffer)
local M = {}

-- The n chunks of a buffer, 0-based: chunk k has count // n elements, one more
-- for the first count % n chunks (as the ring splits a message that does not
-- divide evenly).
function M.chunks(buf, n)
  local count = buf:count()
  local base, extra = count // n, count % n
  local out, first = {}, 0
  for k = 0, n - 1 do
    local len = base + (k < extra and 1 or 0)
    out[k] = buf:flat(first, len)
    first = first + len
  end
  return out
end

-- Rank r's exact test data: element i is 2^r * (1 + (i mod 1024)/1024). Every
-- partial sum is exact in f32 whatever the order, and the ranks that went into
-- a sum can be read back from it (a bit per rank).
local function exact_data(t, r)
  t:fill{kind = "index", value = 1024}
  mgpu.nn.add(t, t, t, {alpha = 2.0 ^ r / 1024, beta = 0})
end

-- Random data with rounding: sums in another order differ in the last bits.
local function random_data(t, r)
  t:fill{kind = "random", seed = 1000 + r}
  mgpu.nn.add(t, t, t, {alpha = 1 / 3, beta = 0})
end

-- The ranks whose exact data went into element i of chunk value v, as a bit
-- mask (nil when v is not such a sum: garbage, NaN, a wrong scale).
local function mask_of(v, i)
  local m = v / (1 + (i % 1024) / 1024)
  if m ~= m or m < 0 or m >= 2 ^ 30 or m ~= math.floor(m) then return nil end
  return math.floor(m)
end

-- The learner's calls on their communicator: ops counted, bytes sent.
local function calls_of(comm)
  local ops, sent, order = {}, 0, {}
  for _, e in ipairs(comm:flight(4096)) do
    ops[e.op] = (ops[e.op] or 0) + 1
    if e.op == "send" then sent = sent + e.count * 4 end
    if #order < 8 then order[#order + 1] = e.op .. (e.peer and ("->" .. e.peer) or "") end
  end
  return ops, sent, table.concat(order, " ")
end

-- One case: data made by `make`, the learner's `fn` on a fresh communicator,
-- the reference on the world one; per chunk what it holds.
local function run_case(ring, fname, mode, case, count)
  local world = mgpu.comm()
  local n, r = world:size(), world:rank()
  local comm = world:split(0, r, "yours")
  local buf = mgpu.tensor{count = count, name = "buf"}
  local ref = mgpu.tensor{count = count, name = "reference"}
  local make = case == "exact" and exact_data or random_data
  make(buf, r)
  make(ref, r)
  local chunks = M.chunks(buf, n)
  local maxlen = chunks[0]:count()
  local scratch = mgpu.tensor{count = maxlen, name = "scratch"}
  if mode == "ag" then
    -- only this rank's chunk is its own (fully reduced, as after a
    -- reduce-scatter); the others hold -1 until the all-gather fills them
    for k = 0, n - 1 do if k ~= r then chunks[k]:fill(-1) end end
  end
  world:all_reduce(ref)
  if mode == "ag" then
    local mine = M.chunks(ref, n)[r]
    mgpu.copy(chunks[r], mine)
  end
  if mode == "rd" then scratch = mgpu.tensor{count = count, name = "scratch"} end
  local ok, err
  if mode == "rd" then ok, err = pcall(ring[fname], comm, buf, scratch)
  else ok, err = pcall(ring[fname], comm, chunks, scratch) end
  local row = {mode = mode, case = case, n = n, rank = r, count = count, fn = fname}
  if not ok then
    row.error = tostring(err)
    mgpu.result(row)
    return
  end
  mgpu.synchronize()
  row.ops, row.sent, row.order = calls_of(comm)
  local rchunks = M.chunks(ref, n)
  row.chunks = {}
  local first_of = 0
  for k = 0, n - 1 do
    local c = chunks[k]
    local v0 = c:get(0)
    local bad, maxerr, first
    if case == "exact" then
      bad, maxerr, first = c:compare(rchunks[k])
    else
      bad, maxerr, first = c:compare(rchunks[k], 1e-5, 1e-5 * n)
    end
    local exact_bad = c:compare(rchunks[k])
    row.chunks[k + 1] = {k = k, first = first_of, len = c:count(), bad = bad, exact_bad = exact_bad,
                         maxerr = maxerr, at = first, mask = case == "exact" and mask_of(v0, first_of) or nil,
                         v0 = v0}
    first_of = first_of + c:count()
  end
  mgpu.result(row)
  comm:destroy()
end

-- Modelled milliseconds of fn(), between two timing events on the default
-- stream, after every rank has arrived.
local function timed(world, fn)
  world:barrier()
  local a, b = mgpu.event{timing = true}, mgpu.event{timing = true}
  a:record()
  local ok, err = pcall(fn)
  b:record()
  if not ok then return nil, err end
  b:synchronize()
  return a:elapsed(b)
end

-- Timing on phantom tensors: the learner's all_reduce and NCCL's; the
-- learner's all_gather and NCCL's when the buffer divides by the ranks.
local function run_time(ring, count)
  local world = mgpu.comm()
  local n, r = world:size(), world:rank()
  local comm = world:split(0, r, "yours")
  local buf = mgpu.phantom_tensor{count = count}
  local chunks = M.chunks(buf, n)
  local scratch = mgpu.phantom_tensor{count = chunks[0]:count()}
  local row = {mode = "time", n = n, rank = r, bytes = count * 4}
  local err
  row.ring_ms, err = timed(world, function() ring.all_reduce(comm, chunks, scratch) end)
  if not row.ring_ms then row.error = tostring(err); mgpu.result(row); return end
  row.ops, row.sent = calls_of(comm)
  row.nccl_ms = timed(world, function() world:all_reduce(buf) end)
  if count % n == 0 then
    local gcomm = world:split(0, r, "yours-ag")
    row.ag_ms, err = timed(world, function() ring.all_gather(gcomm, chunks, scratch) end)
    if not row.ag_ms then row.error = tostring(err); mgpu.result(row); return end
    row.ag_ops = calls_of(gcomm)
    local out = mgpu.phantom_tensor{count = count}
    row.nccl_ag_ms = timed(world, function() world:all_gather(chunks[r], out) end)
    gcomm:destroy()
  end
  mgpu.result(row)
  comm:destroy()
end

-- A sweep of sizes (phantom): the learner's all_reduce at each, modelled ms;
-- whole = true: their doubling, given the whole buffer.
local function run_sweep(ring, whole)
  local world = mgpu.comm()
  local n, r = world:size(), world:rank()
  local comm = world:split(0, r, "yours")
  local rows = {}
  local count = n
  while count <= 64 * 1024 * 1024 do
    local buf = mgpu.phantom_tensor{count = count}
    local chunks = M.chunks(buf, n)
    local scratch = mgpu.phantom_tensor{count = whole and count or chunks[0]:count()}
    local ms, err = timed(world, function()
      if whole then ring.doubling(comm, buf, scratch) else ring.all_reduce(comm, chunks, scratch) end
    end)
    if not ms then mgpu.result{mode = "sweep", n = n, rank = r, error = tostring(err)}; return end
    rows[#rows + 1] = {bytes = count * 4, ms = ms}
    buf:free(); scratch:free()
    count = count * 4
  end
  local ops = calls_of(comm)
  mgpu.result{mode = "sweep", n = n, rank = r, sizes = rows, ops = ops}
  comm:destroy()
end

-- ring: the learner's table of functions; args: mgpu.args.
function M.run(ring, args)
  local mode, count = args[1] or "ar", tonumber(args[2] or "1027")
  if mode == "time" then return run_time(ring, count) end
  if mode == "sweep" then return run_sweep(ring, args[3] == "whole") end
  local fname = ({rs = "reduce_scatter", ag = "all_gather", ar = "all_reduce", rd = "doubling"})[mode]
  if not fname then error("coll.harness: unknown mode " .. tostring(mode)) end
  if type(ring[fname]) ~= "function" then
    mgpu.result{mode = mode, rank = mgpu.rank, error = "ring." .. fname .. " is not a function"}
    return
  end
  run_case(ring, fname, mode, "exact", count)
  run_case(ring, fname, mode, "random", count)
end

return M
