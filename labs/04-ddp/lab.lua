-- labs/04-ddp/lab.lua - the note's practice 4: DDP toy training, one level
-- below PyTorch. A ResNet on one rank; data parallel done naively (every
-- gradient averaged after backward); the learner's own reducer (buckets,
-- backward hooks, the communication stream, an event per bucket); the
-- bucket size swept; the run's NCCL trace read. The training loop and its
-- measurements are labs/lib/ddp/train.lua.

local STEPS, GLOBAL = 16, 64          -- the small model's run: steps, global batch
local WIDE_STEPS, WIDE_GLOBAL = 4, 128 -- the wide model's (timing) runs
local PER_RANK = 16                    -- the scaling runs: images per rank (weak scaling)

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
  return { ok = false, msg = L("%s did not finish: %s", what, tostring(res and res.reason)),
           saw = tostring(res and res.reason), wanted = L("every rank finishes"), where = L("log pane (5)") }
end

-- Parameters identical on every rank: the verdict names the first parameter
-- (in the model's order) whose bits differ between rank 0 and another rank.
local function identical_params(res, n, where)
  local sums = checksums(res, n)
  if not sums[0] then return { ok = false, msg = L("rank 0 reported no parameters"), saw = L("nothing"),
                               wanted = L("checksums"), where = where } end
  local names = {}
  for name in pairs(sums[0].params or {}) do names[#names + 1] = name end
  table.sort(names)
  for r = 1, n - 1 do
    local s = sums[r]
    if not s then return { ok = false, msg = L("rank %d reported no parameters", r), saw = L("nothing"),
                           wanted = L("checksums"), where = where } end
    if s.checksum ~= sums[0].checksum then
      local first = "?"
      for _, name in ipairs(names) do
        if (s.params or {})[name] ~= sums[0].params[name] then first = name; break end
      end
      return { ok = false, msg = L("the ranks' parameters differ after %d steps: %s on rank %d is not rank 0's (each rank trained on its own shard only?)",
                                     STEPS, first, r),
               saw = L("rank %d: %s, rank 0: %s", r, s.checksum, sums[0].checksum),
               wanted = L("the same bits on every rank"), where = where }
    end
  end
  return { ok = true, msg = L("all %d ranks hold the same parameters after %d steps (checksum %s)", n, STEPS,
                                sums[0].checksum),
           saw = sums[0].checksum, wanted = L("the same bits on every rank"), where = where }
end

local function small(mode) return { mode, tostring(STEPS), tostring(GLOBAL), "small" } end
local function wide(mode) return { mode, tostring(WIDE_STEPS), tostring(WIDE_GLOBAL), "wide" } end

local function run_small(lab, mode, n)
  return lab.spmd("scripts/run.lua", { ranks = n, args = small(mode), timeout = 120 })
end

-- The reducer runs of step 3 and 4: the learner's exercise file.
local function run_reducer(lab, kind, n, bucket_mb, global, env, machine)
  local args = kind == "small" and { tostring(STEPS), tostring(global or GLOBAL), "small", tostring(bucket_mb) }
               or { tostring(WIDE_STEPS), tostring(global or WIDE_GLOBAL), "wide", tostring(bucket_mb) }
  return lab.spmd(lab.exercise, { ranks = n, args = args, timeout = 120, env = env, machine = machine })
end

-- What carries gradients between rank 0 and rank 1, from the transport NCCL
-- chose (the run's parsed log) and the topology's GPU0-GPU1 link: one of
-- the words the scaling question accepts.
local function carrier(transport, link01)
  local t = tostring(transport or "")
  if t:match("^P2P") then return tostring(link01 or ""):match("^NV") and "nvlink" or "pcie" end
  if t:match("^SHM") then return "host memory" end
  if t:match("Socket") then return "sockets" end
  if t:match("^NET") or t:match("^COLLNET") then return "network" end
  return nil
end

-- A learner's words for a link, in the same vocabulary.
local function carrier_of_answer(a)
  a = tostring(a or ""):lower():gsub("^%s+", ""):gsub("%s+$", "")
  if a:match("^nv") then return "nvlink" end
  if a:match("^pci") then return "pcie" end
  if a:match("^shm") or a:match("^host") or a:match("shared memory") then return "host memory" end
  if a:match("^sock") or a:match("^tcp") then return "sockets" end
  if a:match("^net") or a:match("^ib") or a:match("infiniband") or a:match("^roce") then return "network" end
  return a
end

-- How many buckets PyTorch's DDP makes of the same gradients
-- (compute_bucket_assignment_by_size in reducer.cpp): the gradients in the
-- order given, a bucket closed once its bytes REACH its limit (the gradient
-- that crosses it stays in), the first limit 1 MiB
-- (dist._DEFAULT_FIRST_BUCKET_BYTES), every later one the cap. counts: the
-- run's grad_counts (elements, the model's order; f32); DDP's buckets after
-- its first-iteration rebuild follow the gradients' arrival, the reverse.
local TORCH_FIRST_BUCKET = 1024 * 1024
local function torch_buckets(counts, cap_mb)
  local t = {}
  for v in tostring(counts or ""):gmatch("%d+") do t[#t + 1] = tonumber(v) end
  if #t == 0 then return nil end
  local n, size, limit = 0, 0, TORCH_FIRST_BUCKET
  for i = #t, 1, -1 do
    size = size + 4 * t[i]
    if size >= limit then n, size, limit = n + 1, 0, cap_mb * 1024 * 1024 end
  end
  return size > 0 and n + 1 or n
end

-- Step 3's bar: the share of one all-reduce of every gradient (comm_ms)
-- that the learner's reducer took off the step, against the same
-- gradients all-reduced in one call after backward (scripts/after_backward.lua:
-- as few calls as any reducer, nothing overlapped). Not the naive run: its
-- exposed time is mostly one call per parameter (on dgx-h100 1.32 ms after
-- backward for a 0.29 ms all-reduce), which any bucketing removes, overlap
-- or not. Measured on the sim's presets (wide ResNet, 4 ranks, 25 MiB):
-- the reference reducer 61 / 60 / 64 / 61 % (dgx-h100, dgx-h200, pcie-4gpu,
-- 2x-dgx-h100); reducers that all-reduce only in wait(), put everything in
-- one bucket, all-reduce on the default stream or wait for each bucket in
-- ready() -7 to +1 % (tests/labs/wrong/04-ddp/reducer). Checked only where
-- each rank has a GPU.
local HIDDEN_BAR = 0.30

-- The step's verdict on that share: a = the learner's summary, f = the
-- after-backward run's.
local function hidden_verdict(a, f)
  local where = L("results pane (3), table 'the wide ResNet': step time, yours against 'after backward'; timeline pane (4): when do your all-reduces run?")
  if not (a and f and a.comm_ms and a.comm_ms > 0) then
    return { ok = false, msg = L("the wide ResNet's runs reported no step or all-reduce time"), saw = L("nothing"),
             wanted = L("step_ms and comm_ms in both runs' summaries"), where = where }
  end
  local saved = f.step_ms - a.step_ms
  local share = saved / a.comm_ms
  local saw = L("%.0f %% (%.3f ms of %.3f ms)", 100 * share, saved, a.comm_ms)
  local wanted = L(">= %.0f %% of one all-reduce of every gradient", 100 * HIDDEN_BAR)
  if share >= HIDDEN_BAR then
    return { ok = true, saw = saw, wanted = wanted, where = where,
             msg = L("your reducer took %.0f %% of one all-reduce of every gradient (%.3f ms) off the step: %.3f ms against %.3f ms for the same gradients all-reduced in one call after backward",
                     100 * share, a.comm_ms, a.step_ms, f.step_ms) }
  end
  return { ok = false, saw = saw, wanted = wanted, where = where,
           msg = L("your reducer took only %.0f %% of one all-reduce of every gradient (%.3f ms) off the step: %.3f ms against %.3f ms for the same gradients all-reduced in one call after backward; wanted at least %.0f %%",
                   100 * share, a.comm_ms, a.step_ms, f.step_ms, 100 * HIDDEN_BAR) }
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
        lab.progress(0, L("ResNet-8 on one rank, %d steps of %d images", STEPS, GLOBAL))
        local res = run_small(lab, "single", 1)
        local s = summary(res)
        local l = losses(s)
        local t = {}
        for i = 1, #l, 3 do t[#t + 1] = { tostring(i), f3(l[i]) } end
        lab.table{ title = L("loss, one rank, global batch %d", GLOBAL), columns = { L("step"), L("loss") }, rows = t }
        lab.table{ title = L("time"), columns = { "", "" },
                   rows = { { L("step time (ms)"), f3(s and s.step_ms) },
                            { L("images/s"), s and string.format("%.0f", s.samples_per_s) or "-" },
                            { L("parameters"), s and L("%d tensors, %.2f MiB of f32", s.params, s.grad_mib) or "-" } } }
        if s then lab.record("single_step_ms", s.step_ms) end
        return { res = res, s = s }
      end,
      check = function(lab, out)
        if not out.res.ok or not out.s then return broken(out.res, L("the one-rank run")) end
        local l = losses(out.s)
        local first, last = mean(l, 1, 4), mean(l, #l - 3, #l)
        return { ok = last < first, msg = L("the loss fell from %.3f (mean of the first 4 steps) to %.3f (the last 4)",
                                             first, last),
                 saw = f3(last), wanted = L("below %s", f3(first)), where = L("results pane (3), table 'loss'") }
      end,
    },
    {
      id = "naive", title = "Data parallel, naively: average every gradient after backward",
      text = "steps/02-naive.md",
      run = function(lab)
        local n = nranks(lab)
        lab.progress(0, L("naive data parallel on %d ranks", n))
        local dp = run_small(lab, "naive", n)
        lab.progress(0.6, L("one rank on the global batch (the reference)"))
        local one = run_small(lab, "single", 1)
        local a, b = summary(one), summary(dp)
        local la, lb = losses(a), losses(b)
        local t = {}
        for i = 1, math.max(#la, #lb), 3 do t[#t + 1] = { tostring(i), f3(la[i]), f3(lb[i]) } end
        lab.table{ title = L("loss: one rank on %d images vs %d ranks on %d each", GLOBAL, n, GLOBAL // n),
                   columns = { L("step"), L("one rank"), L("%d ranks, naive", n) }, rows = t }
        local sums = checksums(dp, n)
        local cs = {}
        for r = 0, n - 1 do cs[#cs + 1] = { L("rank %d", r), sums[r] and sums[r].checksum or "-" } end
        lab.table{ title = L("parameter checksums after %d steps", STEPS), columns = { L("rank"), L("checksum") }, rows = cs }
        if b then lab.record("naive_step_ms", b.step_ms) end
        return { dp = dp, one = one, n = n }
      end,
      check = function(lab, out)
        if not out.dp.ok then return broken(out.dp, L("the naive data-parallel run")) end
        if not out.one.ok then return broken(out.one, L("the one-rank run")) end
        local la, lb = losses(summary(out.one)), losses(summary(out.dp))
        local worst, at = 0, 1
        for i = 1, math.min(#la, #lb) do
          if math.abs(la[i] - lb[i]) > worst then worst, at = math.abs(la[i] - lb[i]), i end
        end
        return {
          identical_params(out.dp, out.n, L("results pane (3), table 'parameter checksums'")),
          { ok = #lb == STEPS and worst <= 0.15,
            msg = L("loss curves, %d ranks vs one rank on the global batch: largest difference %.3f at step %d (tolerance 0.15: batch norm normalises each rank's shard by its own statistics)",
                    out.n, worst, at),
            saw = f3(worst), wanted = "<= 0.150", where = L("results pane (3), table 'loss'") },
        }
      end,
    },
    {
      id = "reducer", title = "Exercise: write DDP's reducer",
      text = "steps/03-reducer.md",
      exercise = "reducer.lua",
      hints = { "Build the buckets in Reducer.new: walk params from the last to the first, start a new bucket when " ..
                "the next gradient would not fit, and remember each parameter's bucket and offset.",
                "In ready(p): copy the gradient into its place in its bucket and count the bucket down. When its " ..
                "last gradient is in, the bucket's all-reduce goes on the communicator's stream - but the copies " ..
                "ran on the default stream, and another stream does not see their end by itself.",
                "In wait(): the gradients come back from the buckets on the default stream, which must not read a " ..
                "bucket before its all-reduce is done - the same kind of ordering as in ready(), the other way " ..
                "round. And the next step needs the buckets ready to count down again." },
      run = function(lab)
        local n = nranks(lab)
        lab.progress(0, L("your reducer, ResNet-8 on %d ranks", n))
        local mine = run_reducer(lab, "small", n, 25)
        lab.progress(0.3, L("the naive exchange, same run"))
        local naive = run_small(lab, "naive", n)
        lab.progress(0.55, L("your reducer, the wide ResNet (timing), 25 MiB buckets"))
        local mine_w = run_reducer(lab, "wide", n, 25)
        lab.progress(0.7, L("the naive exchange, the wide ResNet"))
        local naive_w = lab.spmd("scripts/run.lua", { ranks = n, args = wide("naive"), timeout = 120 })
        lab.progress(0.85, L("every gradient in one all-reduce after backward, the wide ResNet"))
        local flat_w = lab.spmd("scripts/after_backward.lua",
                                { ranks = n, args = { tostring(WIDE_STEPS), tostring(WIDE_GLOBAL), "wide", "25" }, timeout = 120 })
        local a, b, f = summary(mine_w), summary(naive_w), summary(flat_w)
        lab.table{ title = L("the wide ResNet (ResNet-32, width 96), %d ranks", n),
                   columns = { "", L("naive"), L("after backward"), L("your reducer (25 MiB)") },
                   rows = { { L("step time (ms)"), f3(b and b.step_ms), f3(f and f.step_ms), f3(a and a.step_ms) },
                            { L("all-reduce left after backward (ms)"), f3(b and b.exposed_ms), f3(f and f.exposed_ms),
                              f3(a and a.exposed_ms) },
                            { L("one all-reduce of every gradient (ms)"), f3(b and b.comm_ms), f3(f and f.comm_ms),
                              f3(a and a.comm_ms) },
                            { L("hidden behind backward"), pct(b and b.hidden), pct(f and f.hidden), pct(a and a.hidden) },
                            { L("gradients (MiB)"), f2(b and b.grad_mib), f2(f and f.grad_mib), f2(a and a.grad_mib) } } }
        local la, lb = losses(summary(mine)), losses(summary(naive))
        lab.table{ title = L("ResNet-8: final loss"), columns = { L("naive"), L("yours") }, rows = { { f3(lb[#lb]), f3(la[#la]) } } }
        if a then lab.record("ddp_hidden", a.hidden); lab.record("ddp_step_ms", a.step_ms) end
        return { mine = mine, naive = naive, mine_w = mine_w, naive_w = naive_w, flat_w = flat_w, n = n }
      end,
      check = function(lab, out)
        if not out.mine.ok then return broken(out.mine, L("your reducer.lua")) end
        if not out.naive.ok then return broken(out.naive, L("the naive run")) end
        if not out.mine_w.ok then return broken(out.mine_w, L("your reducer.lua on the wide ResNet")) end
        if not out.naive_w.ok then return broken(out.naive_w, L("the naive run of the wide ResNet")) end
        if not out.flat_w.ok then return broken(out.flat_w, L("the after-backward run of the wide ResNet")) end
        local la, lb = losses(summary(out.mine)), losses(summary(out.naive))
        local a, b, f = summary(out.mine_w), summary(out.naive_w), summary(out.flat_w)
        local v = {
          identical_params(out.mine, out.n, L("results pane (3); your reducer's ready() and wait()")),
          checks.close{ value = la[#la], expected = lb[#lb], rtol = 1e-4, what = L("final loss, your reducer vs the naive exchange"),
                        where = L("results pane (3), table 'final loss'") },
        }
        -- Ranks that share one GPU share its SMs: the exchange is a local copy
        -- and no reducer can win much; the bar holds where each rank has a GPU.
        if (lab.backend.gpus or 0) >= out.n then
          v[#v + 1] = hidden_verdict(a, f)
        else
          lab.log(L("%d ranks share %d GPU(s): the step-time bar is not checked here (after backward %.3f ms, yours %.3f ms)",
                      out.n, lab.backend.gpus or 0, f and f.step_ms or 0, a and a.step_ms or 0))
        end
        if nvlink_sim(lab) then
          v[#v + 1] = checks.bandwidth{ value = 100 * a.hidden, peak = 100, fraction = 0.25, unit = "%",
                                        what = L("all-reduce time hidden behind backward"),
                                        peak_what = L("all of it (the bar: a quarter)"),
                                        where = L("results pane (3), row 'hidden behind backward'; timeline pane (4)") }
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
          lab.progress((i - 1) / 4, L("%d MiB buckets", mb))
          local res = run_reducer(lab, "wide", n, mb)
          local s = summary(res)
          runs[mb] = s
          t[#t + 1] = { tostring(mb), f3(s and s.step_ms), f3(s and s.exposed_ms), pct(s and s.hidden) }
        end
        lab.table{ title = L("bucket size (wide ResNet, %d ranks, %s MiB of gradients)", n, f2(runs[25] and runs[25].grad_mib)),
                   columns = { "MiB", L("step time (ms)"), L("all-reduce after backward (ms)"), L("hidden") }, rows = t }
        return { runs = runs }
      end,
      check = function(lab, out)
        local s = out.runs[25]
        if not s or not s.buckets then
          return { ok = false, msg = L("the 25 MiB run reported no bucket count: does your reducer keep self.buckets?"),
                   saw = L("nothing"), wanted = L("a list of buckets"), where = L("your reducer.lua") }
        end
        local v = checks.equals{ value = lab.answer("calls25"), expected = s.buckets, answer = true, missing = L("press a to answer"),
                                 what = L("all_reduce calls per step with 25 MiB buckets"), where = L("results pane (3): the gradient size") }
        -- PyTorch's rule packs the same gradients differently (step 3's
        -- text): said beside a right answer, and named when an answer is
        -- its count rather than the learner's reducer's
        local torch = torch_buckets(s.grad_counts, 25)
        if torch and v.ok then
          v.msg = v.msg .. L(" - PyTorch's DDP would make %d all-reduces of the same %.1f MiB: a first bucket of 1 MiB, and buckets closed once they reach 25 MiB",
                             torch, s.grad_mib or 0)
        elseif torch and not v.unanswered and tonumber(lab.answer("calls25")) == torch and torch ~= s.buckets then
          v.msg = v.msg .. L(" - that is what PyTorch's rule would make (a 1 MiB first bucket, buckets closed once they reach the cap); count the buckets of YOUR reducer's rule, which closes a bucket before the cap is passed")
        end
        return v
      end,
    },
    {
      id = "broadcast", title = "Pitfall: ranks that start apart",
      text = "steps/05-broadcast.md",
      run = function(lab)
        local n = nranks(lab)
        local function naive_init(init)
          return lab.spmd("scripts/run.lua", { ranks = n, timeout = 120,
                                               args = { "naive", tostring(STEPS), tostring(GLOBAL), "small", "25", init } })
        end
        lab.progress(0, L("each rank initialises its own parameters"))
        local apart = naive_init("per-rank")
        lab.progress(0.5, L("the same, then rank 0's parameters broadcast"))
        local bcast = naive_init("broadcast")
        local sa, sb = checksums(apart, n), checksums(bcast, n)
        local t = {}
        for r = 0, n - 1 do t[#t + 1] = { L("rank %d", r), sa[r] and sa[r].checksum or "-", sb[r] and sb[r].checksum or "-" } end
        lab.table{ title = L("parameter checksums after %d steps of naive data parallel", STEPS),
                   columns = { L("rank"), L("no broadcast"), L("broadcast from rank 0") }, rows = t }
        return { apart = apart, bcast = bcast, n = n }
      end,
      check = function(lab, out)
        if not out.apart.ok then return broken(out.apart, L("the run without a broadcast")) end
        if not out.bcast.ok then return broken(out.bcast, L("the run with the broadcast")) end
        local where = L("results pane (3), table 'parameter checksums'")
        local apart = identical_params(out.apart, out.n, where)
        return {
          { ok = not apart.ok, msg = apart.ok and L("without a broadcast the ranks still agree: did each rank start from its own values?")
                                   or L("without a broadcast the ranks stay apart, averaged gradients or not: %s", apart.msg),
            saw = apart.saw, wanted = L("different parameters on the ranks"), where = where },
          identical_params(out.bcast, out.n, where),
        }
      end,
    },
    {
      id = "bn", title = "Pitfall: batch norm's statistics, per rank",
      text = "steps/06-bn-buffers.md",
      run = function(lab)
        local n = nranks(lab)
        local function naive_buffers(b)
          return lab.spmd("scripts/run.lua", { ranks = n, timeout = 120,
                                               args = { "naive", tostring(STEPS), tostring(GLOBAL), "small", "25", "same", b } })
        end
        lab.progress(0, L("naive data parallel, each rank keeps its own running statistics"))
        local own = naive_buffers("own")
        lab.progress(0.5, L("the same, rank 0's buffers broadcast before every forward"))
        local bc = naive_buffers("broadcast")
        local so, sb = checksums(own, n), checksums(bc, n)
        local t = {}
        for r = 0, n - 1 do
          local a, b = so[r] or {}, sb[r] or {}
          local f4 = function(x) return type(x) == "number" and string.format("%.4f", x) or "-" end
          t[#t + 1] = { L("rank %d", r), a.checksum or "-", a.buffers or "-", f4(a.eval_loss), b.buffers or "-", f4(b.eval_loss) }
        end
        lab.table{ title = L("after %d steps: parameters, batch-norm buffers and the held-out loss in eval mode", STEPS),
                   columns = { L("rank"), L("parameters"), L("buffers (own)"), L("eval loss (own)"), L("buffers (broadcast)"),
                               L("eval loss (broadcast)") }, rows = t }
        return { own = own, bc = bc, n = n }
      end,
      check = function(lab, out)
        if not out.own.ok then return broken(out.own, L("the run with per-rank buffers")) end
        if not out.bc.ok then return broken(out.bc, L("the run with broadcast buffers")) end
        local where = L("results pane (3), the table of buffers")
        local function spread(res, key)
          local sums, seen, vals = checksums(res, out.n), {}, {}
          for r = 0, out.n - 1 do
            local v = sums[r] and sums[r][key]
            if v ~= nil then vals[#vals + 1] = v; seen[tostring(v)] = true end
          end
          local k = 0
          for _ in pairs(seen) do k = k + 1 end
          return k, vals
        end
        local own_k = spread(out.own, "buffers")
        local bc_k = spread(out.bc, "buffers")
        local _, own_loss = spread(out.own, "eval_loss")
        local lo, hi = math.huge, -math.huge
        for _, v in ipairs(own_loss) do lo, hi = math.min(lo, v), math.max(hi, v) end
        return {
          identical_params(out.own, out.n, where),
          { ok = own_k > 1,
            msg = own_k > 1 and L("with the gradients averaged the parameters agree, but the running statistics do not: %d different sets over %d ranks, held-out loss in eval mode %.4f to %.4f",
                                    own_k, out.n, lo, hi)
                  or L("each rank kept its own statistics, yet they agree: did every rank see the same images?"),
            saw = L("%d different buffer sets", own_k), wanted = L("one per rank (each normalised its own shard)"), where = where },
          { ok = bc_k == 1,
            msg = bc_k == 1 and L("with rank 0's buffers broadcast before every forward: %d buffer set over %d ranks", bc_k, out.n)
                  or L("with rank 0's buffers broadcast before every forward: %d buffer sets over %d ranks", bc_k, out.n),
            saw = tostring(bc_k), wanted = "1", where = where },
        }
      end,
    },
    {
      id = "trace", title = "The NCCL trace of your run",
      text = "steps/07-trace.md",
      questions = { { id = "transport", ask = "Which transport joins rank 0 and rank 1?" },
                    { id = "link", ask = "Why that transport: what joins GPU0 and GPU1 (NVLink, PCIe, host memory, " ..
                                         "sockets or network)?" },
                    { id = "per_channel", ask = "At the link's one-direction peak, how many GB/s does each of NCCL's " ..
                                                "channels get (one decimal)?" } },
      hints = { "The log pane's parsed view of the run (5) lists the channels and, per pair of ranks, the transport.",
                "The link between the two GPUs is in the topology pane (1); its peak is what lab 2 measured against.",
                "The channels share the link: each drives its own ring over it." },
      run = function(lab)
        local n = nranks(lab)
        lab.progress(0, L("the naive run with NCCL_DEBUG=INFO"))
        local res = lab.spmd("scripts/run.lua", { ranks = n, args = { "naive", "2", tostring(GLOBAL), "small" },
                                                  env = { NCCL_DEBUG = "INFO" }, timeout = 120 })
        local nc = res.nccl or {}
        lab.log(nc.nnodes == 1 and L("NCCL %s, %s ranks, %s node", tostring(nc.version), tostring(nc.nranks), tostring(nc.nnodes))
                or L("NCCL %s, %s ranks, %s nodes", tostring(nc.version), tostring(nc.nranks), tostring(nc.nnodes)))
        -- what joins GPU0 and GPU1, and that link's peak: the per-channel question's base
        local topo = lab.topo()
        local m = topo and topo.matrix and topo.matrix.rows
        local link01 = (lab.backend.gpus or 0) >= 2 and m and m[1] and m[1][2] or nil
        local peak = link01 and lab.peak(link01) or nil
        return { res = res, nc = nc, link01 = link01, peak = peak }
      end,
      check = function(lab, out)
        if not out.res.ok then return broken(out.res, L("the traced run")) end
        local nc = out.nc
        if not nc.nchannels then
          return { ok = false, msg = L("no NCCL INFO lines were parsed from the run"), saw = L("nothing"),
                   wanted = L("the run's NCCL log"), where = L("log pane (5)") }
        end
        local t01
        for _, l in ipairs(nc.links or {}) do
          if tostring(l.from) == "0" and tostring(l.to) == "1" then t01 = l.transport end
        end
        -- a transport may be named in full (P2P/CUMEM), by its family (p2p,
        -- any case) or, for P2P over NVLink, by the link it runs on
        local t = lab.answer("transport")
        local family = t01 and t01:match("^([^/]+)") or nil
        local ta = t and tostring(t):gsub("^%s+", ""):gsub("%s+$", "") or nil
        if ta and family and (ta:upper() == t01:upper() or ta:upper() == family:upper()
                              or (family == "P2P" and carrier_of_answer(ta) == carrier(t01, out.link01))) then
          ta = t01
        end
        local link = carrier(t01, out.link01)
        local v = {
          checks.equals{ value = ta, expected = t01 or "none", answer = true, what = L("transport rank 0 -> rank 1"),
                         where = L("log pane (5): the parsed view, transports") },
          checks.equals{ value = lab.answer("link") and carrier_of_answer(lab.answer("link")) or nil,
                         expected = link or "none", answer = true, what = L("what joins GPU0 and GPU1"),
                         where = L("topology pane (1): the GPU0-GPU1 cell; lab 1") },
        }
        if out.peak then
          v[#v + 1] = checks.close{ value = lab.answer("per_channel"), expected = out.peak / nc.nchannels, rtol = 0.05,
                                    answer = true, what = L("GB/s per channel at the link's peak"),
                                    where = L("log pane (5): the channels; the link's peak (lab 2)") }
        else -- the question has no link to be about; the other two stand
          v[#v + 1] = { ok = true, saw = L("no link between two GPUs"), wanted = "-", where = L("topology pane (1)"),
                        msg = L("one GPU: its ranks share it, so no link between two GPUs carries the channels (the per-channel question applies on a machine with 2+ GPUs, e.g. --machine dgx-h100)") }
        end
        return v
      end,
    },
    {
      id = "scaling", title = "Scaling: 1, 2, 4 (and 8) ranks",
      text = "steps/08-scaling.md",
      exercise = "reducer.lua",         -- step 3's: your DDP is what scales
      questions = { { id = "carrier", ask = "What carries the gradients between rank 0 and rank 1 on this machine " ..
                                            "(NVLink, PCIe, host memory, sockets or network)?" } },
      hints = { "The transport NCCL chose for rank 0 -> rank 1 is in the log pane's parsed view (5) of the 2-rank run; " ..
                "what joins GPU0 and GPU1 is in the topology pane (1).",
                "P2P is NVLink or PCIe, whichever joins the two GPUs; SHM goes through host memory; NET/Socket " ..
                "is TCP sockets (emulated nodes), NET/IB the network." },
      run = function(lab)
        -- a rank per GPU (at least 2); on a GPU also ranks as emulated nodes
        -- sharing it, up to 4 (the SIMULATED machine does not model ranks
        -- sharing one GPU's SMs, so it runs only as many as it has GPUs)
        local gpus, counts = lab.backend.gpus or 1, {}
        local most = lab.backend.simulated and math.max(2, gpus) or math.max(4, gpus)
        for _, n in ipairs{ 1, 2, 4, 8 } do if n <= most then counts[#counts + 1] = n end end
        local rows, runs = {}, {}
        for i, n in ipairs(counts) do
          lab.progress((i - 1) / #counts, n == 1 and L("the wide ResNet on %d rank, %d images each", n, PER_RANK)
                                          or L("the wide ResNet on %d ranks, %d images each", n, PER_RANK))
          -- the 2-rank run traced: its log says which transport joins rank 0 and rank 1
          local res = run_reducer(lab, "wide", n, 25, PER_RANK * n, n == 2 and { NCCL_DEBUG = "INFO" } or nil)
          local s = summary(res)
          runs[#runs + 1] = { n = n, res = res, s = s }
        end
        local base = runs[1].s and runs[1].s.samples_per_s
        for _, r in ipairs(runs) do
          local s = r.s
          r.eff = s and base and s.samples_per_s / (r.n * base) or nil
          rows[#rows + 1] = { tostring(r.n), f3(s and s.step_ms), s and string.format("%.0f", s.samples_per_s) or "-",
                              pct(r.eff), f3(s and s.exposed_ms), r.n > 1 and f3(s and s.comm_ms) or "-" }
        end
        lab.table{ title = L("weak scaling: the wide ResNet, %d images per rank, your reducer (25 MiB)", PER_RANK),
                   columns = { L("ranks"), L("step time (ms)"), L("images/s"), L("efficiency"), L("all-reduce after backward (ms)"),
                               L("one all-reduce of every gradient (ms)") }, rows = rows }
        local topo = lab.topo()
        local m = topo and topo.matrix and topo.matrix.rows
        local link01 = (lab.backend.gpus or 0) >= 2 and m and m[1] and m[1][2] or nil
        local t01
        for _, l in ipairs((runs[2].res and runs[2].res.nccl or {}).links or {}) do
          if tostring(l.from) == "0" and tostring(l.to) == "1" then t01 = l.transport end
        end
        for _, r in ipairs(runs) do if r.eff then lab.record("scaling_eff_" .. r.n, r.eff) end end
        -- Emulated nodes (ranks sharing one GPU over NCCL's sockets) measure
        -- the sockets, not the reducer: the same step on the SIMULATED
        -- machine of as many GPUs, one rank each, says what the reducer
        -- does where each rank has its own GPU and NVLink joins them.
        local whatif
        if lab.backend.emulated then
          local n = counts[#counts]
          lab.progress(0.95, L("the same %d ranks on the SIMULATED dgx-h100 (a GPU each)", n))
          local one = run_reducer(lab, "wide", 1, 25, PER_RANK, nil, "dgx-h100")
          local many = run_reducer(lab, "wide", n, 25, PER_RANK * n, nil, "dgx-h100")
          local s1, sn = summary(one), summary(many)
          if s1 and sn and s1.samples_per_s then
            whatif = { n = n, eff = sn.samples_per_s / (n * s1.samples_per_s) }
            lab.table{ title = L("your reducer at %d ranks: emulated nodes here vs a GPU each", n),
                       columns = { L("where"), L("efficiency"), L("what limits it") },
                       rows = { { L("here: %d ranks on %d GPU, NCCL over sockets", n, lab.backend.gpus or 1),
                                  pct(runs[#runs].eff), L("the sockets and the shared GPU, not your reducer") },
                                { L("SIMULATED dgx-h100: a GPU each, NVLink"), pct(whatif.eff),
                                  L("the all-reduce backward does not hide") } } }
          end
        end
        return { runs = runs, carrier = carrier(t01, link01), transport = t01, link01 = link01, whatif = whatif }
      end,
      check = function(lab, out)
        for _, r in ipairs(out.runs) do
          if not r.res.ok then
            return broken(r.res, r.n == 1 and L("your reducer on %d rank", r.n) or L("your reducer on %d ranks", r.n))
          end
          if not r.s then return broken(r.res, L("the %d-rank run (no summary row)", r.n)) end
        end
        local two = out.runs[2].s
        if not two.buckets or two.buckets == 0 then
          return { ok = false, msg = L("your reducer made no buckets, so the ranks exchanged nothing and the table shows ranks training alone: write step 3's reducer first"),
                   saw = L("no buckets"), wanted = L("gradients exchanged in buckets"), where = L("your reducer.lua (step 3)") }
        end
        if not out.carrier then
          return { ok = false, msg = L("the 2-rank run's NCCL log named no transport for rank 0 -> rank 1"),
                   saw = tostring(out.transport), wanted = L("a P2P, SHM or NET transport"), where = L("log pane (5)") }
        end
        local a = lab.answer("carrier")
        local last = out.runs[#out.runs]
        local v = checks.equals{ value = a and carrier_of_answer(a) or nil, expected = out.carrier, answer = true,
                                 missing = L("press a to answer"),
                                 what = L("what carries the gradients between rank 0 and rank 1"),
                                 where = L("log pane (5): the 2-rank run's transports; topology pane (1): GPU0-GPU1") }
        if v.ok and out.whatif then
          v.msg = L("%s - at %d ranks the step keeps %.0f %% of linear scaling here, but these are emulated nodes: ranks sharing one GPU over NCCL's sockets, which measures the sockets, not your reducer; with a GPU each (the SIMULATED dgx-h100) the same step keeps %.0f %%",
                      v.msg, last.n, 100 * (last.eff or 0), 100 * out.whatif.eff)
        elseif v.ok then
          v.msg = L("%s - at %d ranks the step keeps %.0f %% of linear scaling; the all-reduce still showing after backward is what it loses",
                      v.msg, last.n, 100 * (last.eff or 0))
        end
        return v
      end,
    },
  },
}
