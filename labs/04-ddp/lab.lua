-- labs/04-ddp/lab.lua - the note's practice 4: DDP toy training, one level
-- below PyTorch. A ResNet on one rank; data parallel done naively (every
-- gradient averaged after backward); the learner's own reducer (buckets,
-- backward hooks, the communication stream, an event per bucket); the
-- bucket size swept; the run's NCCL trace read. The training loop and its
-- measurements are labs/lib/ddp/train.lua.

local STEPS, GLOBAL = 16, 64          -- the small model's run: steps, global batch
local WIDE_STEPS, WIDE_GLOBAL = 4, 128 -- the wide model's (timing) runs

local function f2(x) return type(x) == "number" and string.format("%.2f", x) or "-" end
local function f3(x) return type(x) == "number" and string.format("%.3f", x) or "-" end
local function pct(x) return type(x) == "number" and string.format("%.0f %%", 100 * x) or "-" end

-- Data parallelism wants one rank per GPU: up to 4 (the note's 4 GPUs), at
-- least 2 (on one GPU: ranks share it, on cuda as emulated nodes).
local function nranks(lab) return math.max(2, math.min(4, lab.backend.gpus or 2)) end

local function rows(res, r)
  local rk = res and res.ranks and res.ranks[r]
  return rk and rk.results or {}
end

-- Rank 0's summary row (the one with a mode) and every rank's checksum row.
local function summary(res)
  for _, row in ipairs(rows(res, 0)) do if row.mode then return row end end
end
local function checksums(res, n)
  local out = {}
  for r = 0, n - 1 do
    for _, row in ipairs(rows(res, r)) do if row.checksum then out[r] = row end end
  end
  return out
end

local function losses(row)
  local t = {}
  for v in tostring(row and row.losses or ""):gmatch("%S+") do t[#t + 1] = tonumber(v) end
  return t
end

local function mean(t, i, j)
  local s, n = 0, 0
  for k = i, j do if t[k] then s, n = s + t[k], n + 1 end end
  return n > 0 and s / n or nil
end

-- A failed run is a verdict that says where it broke.
local function broken(res, what)
  return { ok = false, msg = what .. " did not finish: " .. tostring(res and res.reason),
           saw = tostring(res and res.reason), wanted = "every rank finishes", where = "log pane (5)" }
end

-- Parameters identical on every rank: the verdict names the first parameter
-- (in the model's order) whose bits differ between rank 0 and another rank.
local function identical_params(res, n, where)
  local sums = checksums(res, n)
  if not sums[0] then return { ok = false, msg = "rank 0 reported no parameters", saw = "nothing", wanted = "checksums",
                               where = where } end
  local names = {}
  for name in pairs(sums[0].params or {}) do names[#names + 1] = name end
  table.sort(names)
  for r = 1, n - 1 do
    local s = sums[r]
    if not s then return { ok = false, msg = "rank " .. r .. " reported no parameters", saw = "nothing",
                           wanted = "checksums", where = where } end
    if s.checksum ~= sums[0].checksum then
      local first = "?"
      for _, name in ipairs(names) do
        if (s.params or {})[name] ~= sums[0].params[name] then first = name; break end
      end
      return { ok = false, msg = string.format("the ranks' parameters differ after %d steps: %s on rank %d is not rank 0's "
                                               .. "(each rank trained on its own shard only?)", STEPS, first, r),
               saw = string.format("rank %d: %s, rank 0: %s", r, s.checksum, sums[0].checksum),
               wanted = "the same bits on every rank", where = where }
    end
  end
  return { ok = true, msg = string.format("all %d ranks hold the same parameters after %d steps (checksum %s)", n, STEPS,
                                          sums[0].checksum),
           saw = sums[0].checksum, wanted = "the same bits on every rank", where = where }
end

local function small(mode) return { mode, tostring(STEPS), tostring(GLOBAL), "small" } end
local function wide(mode) return { mode, tostring(WIDE_STEPS), tostring(WIDE_GLOBAL), "wide" } end

local function run_small(lab, mode, n)
  return lab.spmd("scripts/run.lua", { ranks = n, args = small(mode), timeout = 120 })
end

-- The reducer runs of step 3 and 4: the learner's exercise file.
local function run_reducer(lab, kind, n, bucket_mb)
  local args = kind == "small" and { tostring(STEPS), tostring(GLOBAL), "small", tostring(bucket_mb) }
               or { tostring(WIDE_STEPS), tostring(WIDE_GLOBAL), "wide", tostring(bucket_mb) }
  return lab.spmd(lab.exercise, { ranks = n, args = args, timeout = 120 })
end

-- The overlap bar holds where the model's numbers make it hold: NVLink
-- machines of the sim (all-reduce fast enough to hide behind backward).
local function nvlink_sim(lab)
  local m = lab.backend.machine or ""
  return lab.backend.simulated and (m == "dgx-h100" or m == "dgx-h200" or m == "2x-dgx-h100")
end

return {
  title    = "DDP: what PyTorch does for us, one level down",
  summary  = "A ResNet on one rank; data parallel, naively; your own gradient reducer with buckets and backward " ..
             "hooks; the bucket size swept; the run's NCCL trace",
  backends = "sim (any preset) and cuda (N GPUs, or ranks as emulated nodes on one GPU)",
  ranks    = 4,
  steps = {
    {
      id = "single", title = "One rank trains a ResNet",
      text = "steps/01-single.md",
      run = function(lab)
        lab.progress(0, "ResNet-8 on one rank, " .. STEPS .. " steps of " .. GLOBAL .. " images")
        local res = run_small(lab, "single", 1)
        local s = summary(res)
        local l = losses(s)
        local t = {}
        for i = 1, #l, 3 do t[#t + 1] = { tostring(i), f3(l[i]) } end
        lab.table{ title = "loss, one rank, global batch " .. GLOBAL, columns = { "step", "loss" }, rows = t }
        lab.table{ title = "time", columns = { "", "" },
                   rows = { { "step time (ms)", f3(s and s.step_ms) },
                            { "images/s", s and string.format("%.0f", s.samples_per_s) or "-" },
                            { "parameters", s and string.format("%d tensors, %.2f MiB of f32", s.params, s.grad_mib) or "-" } } }
        if s then lab.record("single_step_ms", s.step_ms) end
        return { res = res, s = s }
      end,
      check = function(lab, out)
        if not out.res.ok or not out.s then return broken(out.res, "the one-rank run") end
        local l = losses(out.s)
        local first, last = mean(l, 1, 4), mean(l, #l - 3, #l)
        return { ok = last < first, msg = string.format("the loss fell from %.3f (mean of the first 4 steps) to %.3f (the last 4)",
                                                       first, last),
                 saw = f3(last), wanted = "below " .. f3(first), where = "results pane (3), table 'loss'" }
      end,
    },
    {
      id = "naive", title = "Data parallel, naively: average every gradient after backward",
      text = "steps/02-naive.md",
      run = function(lab)
        local n = nranks(lab)
        lab.progress(0, "naive data parallel on " .. n .. " ranks")
        local dp = run_small(lab, "naive", n)
        lab.progress(0.6, "one rank on the global batch (the reference)")
        local one = run_small(lab, "single", 1)
        local a, b = summary(one), summary(dp)
        local la, lb = losses(a), losses(b)
        local t = {}
        for i = 1, math.max(#la, #lb), 3 do t[#t + 1] = { tostring(i), f3(la[i]), f3(lb[i]) } end
        lab.table{ title = "loss: one rank on " .. GLOBAL .. " images vs " .. n .. " ranks on " .. GLOBAL // n .. " each",
                   columns = { "step", "one rank", n .. " ranks, naive" }, rows = t }
        local sums = checksums(dp, n)
        local cs = {}
        for r = 0, n - 1 do cs[#cs + 1] = { "rank " .. r, sums[r] and sums[r].checksum or "-" } end
        lab.table{ title = "parameter checksums after " .. STEPS .. " steps", columns = { "rank", "checksum" }, rows = cs }
        if b then lab.record("naive_step_ms", b.step_ms) end
        return { dp = dp, one = one, n = n }
      end,
      check = function(lab, out)
        if not out.dp.ok then return broken(out.dp, "the naive data-parallel run") end
        if not out.one.ok then return broken(out.one, "the one-rank run") end
        local la, lb = losses(summary(out.one)), losses(summary(out.dp))
        local worst, at = 0, 1
        for i = 1, math.min(#la, #lb) do
          if math.abs(la[i] - lb[i]) > worst then worst, at = math.abs(la[i] - lb[i]), i end
        end
        return {
          identical_params(out.dp, out.n, "results pane (3), table 'parameter checksums'"),
          { ok = #lb == STEPS and worst <= 0.15,
            msg = string.format("loss curves, %d ranks vs one rank on the global batch: largest difference %.3f at step %d "
                                .. "(tolerance 0.15: batch norm normalises each rank's shard by its own statistics)",
                                out.n, worst, at),
            saw = f3(worst), wanted = "<= 0.150", where = "results pane (3), table 'loss'" },
        }
      end,
    },
    {
      id = "reducer", title = "Exercise: write DDP's reducer",
      text = "steps/03-reducer.md",
      exercise = "reducer.lua",
      hints = { "Build the buckets in Reducer.new: walk params from the last to the first, start a new bucket when " ..
                "the next gradient would not fit, and remember each parameter's bucket and offset.",
                "In ready(p): mgpu.copy(bucket.flat:flat(offset, n), p.grad:view{n}); count down the bucket's " ..
                "pending gradients; at zero, record an event on mgpu.default_stream(), make self.stream wait " ..
                "for it, then self.comm:all_reduce(bucket.flat, \"avg\", self.stream) and record a done event.",
                "In wait(): for every bucket, mgpu.default_stream():wait(bucket.done), copy each slice back with " ..
                "mgpu.copy(p.grad:view{n}, bucket.flat:flat(offset, n)), and reset the pending count." },
      run = function(lab)
        local n = nranks(lab)
        lab.progress(0, "your reducer, ResNet-8 on " .. n .. " ranks")
        local mine = run_reducer(lab, "small", n, 25)
        lab.progress(0.3, "the naive exchange, same run")
        local naive = run_small(lab, "naive", n)
        lab.progress(0.55, "your reducer, the wide ResNet (timing), 25 MiB buckets")
        local mine_w = run_reducer(lab, "wide", n, 25)
        lab.progress(0.8, "the naive exchange, the wide ResNet")
        local naive_w = lab.spmd("scripts/run.lua", { ranks = n, args = wide("naive"), timeout = 120 })
        local a, b = summary(mine_w), summary(naive_w)
        lab.table{ title = "the wide ResNet (ResNet-32, width 96), " .. n .. " ranks",
                   columns = { "", "naive", "your reducer (25 MiB)" },
                   rows = { { "step time (ms)", f3(b and b.step_ms), f3(a and a.step_ms) },
                            { "all-reduce left after backward (ms)", f3(b and b.exposed_ms), f3(a and a.exposed_ms) },
                            { "one all-reduce of every gradient (ms)", f3(b and b.comm_ms), f3(a and a.comm_ms) },
                            { "hidden behind backward", pct(b and b.hidden), pct(a and a.hidden) },
                            { "gradients (MiB)", f2(b and b.grad_mib), f2(a and a.grad_mib) } } }
        local la, lb = losses(summary(mine)), losses(summary(naive))
        lab.table{ title = "ResNet-8: final loss", columns = { "naive", "yours" }, rows = { { f3(lb[#lb]), f3(la[#la]) } } }
        if a then lab.record("ddp_hidden", a.hidden); lab.record("ddp_step_ms", a.step_ms) end
        return { mine = mine, naive = naive, mine_w = mine_w, naive_w = naive_w, n = n }
      end,
      check = function(lab, out)
        if not out.mine.ok then return broken(out.mine, "your reducer.lua") end
        if not out.naive.ok then return broken(out.naive, "the naive run") end
        if not out.mine_w.ok then return broken(out.mine_w, "your reducer.lua on the wide ResNet") end
        if not out.naive_w.ok then return broken(out.naive_w, "the naive run of the wide ResNet") end
        local la, lb = losses(summary(out.mine)), losses(summary(out.naive))
        local a, b = summary(out.mine_w), summary(out.naive_w)
        local v = {
          identical_params(out.mine, out.n, "results pane (3); your reducer's ready() and wait()"),
          checks.close{ value = la[#la], expected = lb[#lb], rtol = 1e-4, what = "final loss, your reducer vs the naive exchange",
                        where = "results pane (3), table 'final loss'" },
        }
        -- Ranks that share one GPU share its SMs: the exchange is a local copy
        -- and no reducer can win much; the bar holds where each rank has a GPU.
        if (lab.backend.gpus or 0) >= out.n then
          v[#v + 1] = checks.bandwidth{ value = b.step_ms, peak = a.step_ms, fraction = 1.03, unit = "ms",
                                        what = "naive step time", peak_what = "your step time (yours should be >= 3 % faster)",
                                        where = "results pane (3), table 'the wide ResNet'" }
        else
          lab.log(string.format("[lab] %d ranks share %d GPU(s): the step-time bar is not checked here (naive %.3f ms, yours %.3f ms)",
                                out.n, lab.backend.gpus or 0, b.step_ms, a.step_ms))
        end
        if nvlink_sim(lab) then
          v[#v + 1] = checks.bandwidth{ value = 100 * a.hidden, peak = 100, fraction = 0.25, unit = "%",
                                        what = "all-reduce time hidden behind backward",
                                        peak_what = "all of it (the bar: a quarter)",
                                        where = "results pane (3), row 'hidden behind backward'; timeline pane (4)" }
        end
        return checks.all(v)
      end,
    },
    {
      id = "buckets", title = "The bucket size, swept",
      text = "steps/04-buckets.md",
      exercise = "reducer.lua",         -- step 3's: the sweep runs your reducer
      questions = { { id = "calls25", ask = "How many all_reduce calls does one step make with 25 MiB buckets?" } },
      hints = { "Your reducer packs whole gradients, last layer first, into buckets of at most 25 MiB: count them " ..
                "from the gradient size in the table (and the rule that a bucket never splits a gradient)." },
      run = function(lab)
        local n = nranks(lab)
        local t, runs = {}, {}
        for i, mb in ipairs({ 1, 5, 25, 100 }) do
          lab.progress((i - 1) / 4, mb .. " MiB buckets")
          local res = run_reducer(lab, "wide", n, mb)
          local s = summary(res)
          runs[mb] = s
          t[#t + 1] = { tostring(mb), f3(s and s.step_ms), f3(s and s.exposed_ms), pct(s and s.hidden) }
        end
        lab.table{ title = "bucket size (wide ResNet, " .. n .. " ranks, " .. f2(runs[25] and runs[25].grad_mib) ..
                           " MiB of gradients)",
                   columns = { "MiB", "step time (ms)", "all-reduce after backward (ms)", "hidden" }, rows = t }
        return { runs = runs }
      end,
      check = function(lab, out)
        local s = out.runs[25]
        if not s or not s.buckets then
          return { ok = false, msg = "the 25 MiB run reported no bucket count: does your reducer keep self.buckets?",
                   saw = "nothing", wanted = "a list of buckets", where = "your reducer.lua" }
        end
        return checks.equals{ value = lab.answer("calls25"), expected = s.buckets, answer = true, missing = "press a to answer",
                              what = "all_reduce calls per step with 25 MiB buckets", where = "results pane (3): the gradient size" }
      end,
    },
    {
      id = "broadcast", title = "Pitfall: ranks that start apart",
      text = "steps/06-broadcast.md",
      run = function(lab)
        local n = nranks(lab)
        local function naive_init(init)
          return lab.spmd("scripts/run.lua", { ranks = n, timeout = 120,
                                               args = { "naive", tostring(STEPS), tostring(GLOBAL), "small", "25", init } })
        end
        lab.progress(0, "each rank initialises its own parameters")
        local apart = naive_init("per-rank")
        lab.progress(0.5, "the same, then rank 0's parameters broadcast")
        local bcast = naive_init("broadcast")
        local sa, sb = checksums(apart, n), checksums(bcast, n)
        local t = {}
        for r = 0, n - 1 do t[#t + 1] = { "rank " .. r, sa[r] and sa[r].checksum or "-", sb[r] and sb[r].checksum or "-" } end
        lab.table{ title = "parameter checksums after " .. STEPS .. " steps of naive data parallel",
                   columns = { "rank", "no broadcast", "broadcast from rank 0" }, rows = t }
        return { apart = apart, bcast = bcast, n = n }
      end,
      check = function(lab, out)
        if not out.apart.ok then return broken(out.apart, "the run without a broadcast") end
        if not out.bcast.ok then return broken(out.bcast, "the run with the broadcast") end
        local where = "results pane (3), table 'parameter checksums'"
        local apart = identical_params(out.apart, out.n, where)
        return {
          { ok = not apart.ok, msg = apart.ok and "without a broadcast the ranks still agree: did each rank start from its own values?"
                                   or ("without a broadcast the ranks stay apart, averaged gradients or not: " .. apart.msg),
            saw = apart.saw, wanted = "different parameters on the ranks", where = where },
          identical_params(out.bcast, out.n, where),
        }
      end,
    },
    {
      id = "trace", title = "The NCCL trace of your run",
      text = "steps/05-trace.md",
      questions = { { id = "channels", ask = "How many channels did NCCL use?" },
                    { id = "transport", ask = "Which transport joins rank 0 and rank 1?" } },
      hints = { "The log pane's parsed view of the run (5) lists the channels and, per pair of ranks, the transport." },
      run = function(lab)
        local n = nranks(lab)
        lab.progress(0, "the naive run with NCCL_DEBUG=INFO")
        local res = lab.spmd("scripts/run.lua", { ranks = n, args = { "naive", "2", tostring(GLOBAL), "small" },
                                                  env = { NCCL_DEBUG = "INFO" }, timeout = 120 })
        local nc = res.nccl or {}
        lab.log(string.format("[lab] NCCL %s, %s ranks, %s nodes", tostring(nc.version), tostring(nc.nranks),
                              tostring(nc.nnodes)))
        return { res = res, nc = nc }
      end,
      check = function(lab, out)
        if not out.res.ok then return broken(out.res, "the traced run") end
        local nc = out.nc
        if not nc.nchannels then
          return { ok = false, msg = "no NCCL INFO lines were parsed from the run", saw = "nothing",
                   wanted = "the run's NCCL log", where = "log pane (5)" }
        end
        local t01
        for _, l in ipairs(nc.links or {}) do
          if tostring(l.from) == "0" and tostring(l.to) == "1" then t01 = l.transport end
        end
        return {
          checks.equals{ value = lab.answer("channels"), expected = tostring(nc.nchannels), answer = true,
                         missing = "press a to answer", what = "channels", where = "log pane (5): the parsed view" },
          checks.equals{ value = lab.answer("transport"), expected = t01 or "none", answer = true,
                         missing = "press a to answer", what = "transport rank 0 -> rank 1",
                         where = "log pane (5): the parsed view, transports" },
        }
      end,
    },
  },
}
