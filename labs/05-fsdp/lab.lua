-- labs/05-fsdp/lab.lua - the note's practice 5: FSDP for a 70B Llama on 8
-- GPUs. The memory planner (does it fit, and under which strategy), the
-- learner's FSDP configuration run on phantom tensors until the caching
-- allocator lets it through, the all-gather / compute / reduce-scatter
-- timeline with the learner's prefetch, and the same FSDP code on a small
-- proxy with real numbers against an unsharded reference. The library is
-- labs/lib/fsdp (model shapes, planner, layer functions, the sharded step).

local GB = 1e9
local function gb(b) return type(b) == "number" and string.format("%.1f", b / GB) or "-" end
local function f1(x) return type(x) == "number" and string.format("%.1f", x) or "-" end
local function pct(x) return type(x) == "number" and string.format("%.0f %%", 100 * x) or "-" end

-- The 70B steps (plan, attempt, prefetch) are about the note's machine, 8
-- GPUs of 80 GB, on phantom tensors (timing and memory only, nothing
-- computed), which only the sim has. A sim preset of 8 or more GPUs is that
-- machine itself; any other machine - a real GPU (no phantom tensors), a
-- preset with fewer GPUs - runs them as a what-if on the SIMULATED dgx-h100
-- preset (lab.spmd's machine option), and the tables say so. The steps then
-- plan for the same machine everywhere, so one set of answers holds
-- (solutions/answers-dgx-h100.txt).
local NOTE_MACHINE, BIG_RANKS = "dgx-h100", 8
local function big_machine(lab)
  if lab.backend.simulated and (lab.backend.gpus or 0) >= BIG_RANKS then return nil end
  return NOTE_MACHINE
end
-- lab.spmd's options for a 70B-step run: the call's, on the machine above.
local function big_opts(lab, o)
  o.machine = big_machine(lab)
  return o
end
-- Where a 70B-step run ran, from its result, for titles and the log:
-- "SIMULATED dgx-h100, the note's 8 H100s: this machine has 1 GPU".
local function big_where(lab, res)
  local m = res and res.machine or big_machine(lab) or lab.backend.machine or "?"
  if res and res.whatif then
    local g = lab.backend.gpus or 1
    return string.format("SIMULATED %s, the note's 8 H100s: this machine has %d GPU%s", m, g, g == 1 and "" or "s")
  end
  return "SIMULATED " .. m
end
-- The real-data proxy runs on 8 ranks everywhere (ranks share a GPU when
-- there are fewer; it is small).
local PROXY_RANKS = 8
local PROXY_STEPS, PROXY_MB = 3, 2

local function rows(res, r)
  local rk = res and res.ranks and res.ranks[r]
  return rk and rk.results or {}
end
local function row_with(res, key, r)
  for _, row in ipairs(rows(res, r or 0)) do if row[key] ~= nil then return row end end
end

local function failure(res)
  if not res then return "no result" end
  for r = 0, 15 do
    local rk = res.ranks and res.ranks[r]
    if rk and rk.error then return tostring(rk.error):gsub("\n.*", "") end
  end
  return tostring(res.reason)
end

local function broken(res, what, where)
  local why = failure(res)
  return { ok = false, msg = what .. " did not finish: " .. why, saw = why, wanted = "every rank finishes",
           where = where or "log pane (5)" }
end

-- The learner's configuration (step 2's exercise), checked before it runs.
local KNOWN = { sharding = "string", offload = "boolean", checkpoint = "boolean", micro_batch = "number", seq = "number" }
local STRATEGIES = { FULL_SHARD = true, SHARD_GRAD_OP = true, NO_SHARD = true }
local function read_config(lab, path)
  local ok, cfg = pcall(lab.load, path)
  if not ok then return nil, "config.lua does not load: " .. tostring(cfg) end
  if type(cfg) ~= "table" then return nil, "config.lua must return a table" end
  for k, v in pairs(cfg) do
    if not KNOWN[k] then return nil, ("config.lua: unknown key '%s' (the keys: sharding, offload, checkpoint, "
                                      .. "micro_batch, seq)"):format(tostring(k)) end
    if type(v) ~= KNOWN[k] then return nil, ("config.lua: %s must be a %s"):format(k, KNOWN[k]) end
  end
  if not STRATEGIES[cfg.sharding or "FULL_SHARD"] then
    return nil, ("config.lua: sharding '%s' is not FULL_SHARD, SHARD_GRAD_OP or NO_SHARD"):format(cfg.sharding)
  end
  for _, k in ipairs{ "micro_batch", "seq" } do
    local v = cfg[k]
    if v and (math.type(v) ~= "integer" or v < 1 or v > (k == "seq" and 32768 or 64)) then
      return nil, ("config.lua: %s must be a whole number from 1 to %d"):format(k, k == "seq" and 32768 or 64)
    end
  end
  return { sharding = cfg.sharding or "FULL_SHARD", offload = cfg.offload == true, checkpoint = cfg.checkpoint == true,
           micro_batch = cfg.micro_batch or 1, seq = cfg.seq or 4096 }
end
local function config_args(c, steps)
  return { c.sharding, c.offload and "1" or "0", c.checkpoint and "1" or "0", tostring(c.micro_batch), tostring(c.seq),
           tostring(steps) }
end

-- The configuration step 3 times: the one that fits 8 H100s.
local TIMED = { sharding = "FULL_SHARD", offload = true, checkpoint = true, micro_batch = 1, seq = 4096 }

local function yesno(b) return b and "yes" or "no" end

-- Published figures for 70B-class training (step 3's table).
local PUBLISHED = {
  { "NVIDIA NeMo 24.07, Llama-2-70B, 64 H100 (TP4 PP4, FP8, seq 4096)", "1717", "763",
    "NVIDIA/NeMo docs/source/performance/performance_summary.md" },
  { "Llama 2 70B pretraining, A100-80GB: 1,720,320 GPU-hours for 2.0T tokens", "~323 (derived)", "-",
    "Touvron et al. 2023, arXiv:2307.09288, tables 1-2" },
  { "Llama 3 405B pretraining, 8K-16K H100, BF16", "-", "38-43 % MFU",
    "Llama Team 2024, arXiv:2407.21783, table 4" },
}

return {
  title    = "FSDP: a 70B Llama on 8 GPUs",
  summary  = "Why Llama-2-70B does not fit, the memory planner, your FSDP configuration until it runs, " ..
             "the all-gather / reduce-scatter timeline with your prefetch, and the same code on real numbers",
  backends = "any: the 70B steps run on the sim's phantom tensors (timing and memory only) - on a sim preset of 8 or " ..
             "more GPUs that machine, anywhere else the SIMULATED dgx-h100 (the note's 8 H100s); the proxy on this machine",
  ranks    = 8,
  steps = {
    {
      id = "plan", title = "Plan: does Llama-2-70B fit?",
      text = "steps/01-plan.md",
      questions = { { id = "replica", ask = "Does one replica (DDP) fit one GPU of the planned machine (8 GPUs; the first table names it)? (yes/no)" },
                    { id = "full_shard", ask = "Does FULL_SHARD over the planned machine's 8 GPUs fit, no checkpointing, no offload? (yes/no)" },
                    { id = "gb_full_shard", ask = "FULL_SHARD: GB (10^9 bytes) per GPU of parameters + gradients + AdamW states?" } },
      hints = { "Count the parameters from the shapes in the text first: embedding, 80 layers (attention: Q and O are " ..
                "dim x dim, K and V dim x (8 x 128); MLP: three dim x ffn), final norm, LM head. About 69 billion.",
                "Mixed-precision AdamW keeps 16 bytes per parameter: 2 (bf16 weight) + 2 (bf16 gradient) + 4 + 4 + 4 " ..
                "(fp32 master, m, v). DDP keeps all of it on every GPU; FULL_SHARD divides all of it by the ranks.",
                "16 x 68.98e9 / 8 = 138 GB per GPU on 8 GPUs - before a single activation. Compare with the GPU's " ..
                "memory in the table title." },
      run = function(lab)
        local n = BIG_RANKS
        lab.progress(0, "the planner for " .. n .. " GPUs")
        local res = lab.spmd("scripts/plan.lua", big_opts(lab, { ranks = 1, args = { tostring(n) }, timeout = 60 }))
        lab.log("the planner plans for " .. big_where(lab, res))
        local m = row_with(res, "machine")
        local cfgs = {}
        for _, row in ipairs(rows(res, 0)) do if row.config then cfgs[#cfgs + 1] = row end end
        table.sort(cfgs, function(a, b) return a.order < b.order end)
        if m then
          lab.table{ title = "Llama-2-70B from its shapes", columns = { "", "" },
                     rows = { { "layers / hidden / FFN", string.format("%d / %d / %d", m.layers, m.dim, m.ffn) },
                              { "heads / KV heads / vocabulary", string.format("%d / %d / %d", m.heads, m.kv_heads, m.vocab) },
                              { "parameters (counted from the shapes)", string.format("%.2f billion", m.params / 1e9) },
                              { "the machine planned for", string.format("%d GPUs of %s GB (%.2f GiB): %s", n,
                                                                         gb(m.gpu_bytes), m.gpu_bytes / 2 ^ 30,
                                                                         big_where(lab, res)) } } }
        end
        local answered = lab.answer("replica") and lab.answer("full_shard") and lab.answer("gb_full_shard")
        if answered then
          local t = {}
          for _, r in ipairs(cfgs) do
            t[#t + 1] = { r.label, gb(r.params_b), gb(r.grads_b), gb(r.optim_b), gb(r.states_b), gb(r.peak_b),
                          r.at, yesno(r.fits), r.over_at or "-" }
          end
          lab.table{ title = string.format("GB per GPU, %d ranks, micro-batch 1, seq 4096 unless said (GPU: %s GB; "
                                           .. "fits: the peak leaves 5 %% of it free; %s)", n, gb(m and m.gpu_bytes),
                                           big_where(lab, res)),
                     columns = { "strategy", "params", "grads", "optimizer", "states", "peak", "peak at", "fits",
                                 "runs out at" }, rows = t }
        else
          lab.log("the planner's table appears once you have answered the three questions (press a)")
        end
        return { res = res, m = m, cfgs = cfgs }
      end,
      check = function(lab, out)
        if not out.res.ok or not out.m then return broken(out.res, "the planner") end
        local by = {}
        for _, r in ipairs(out.cfgs) do by[r.config] = r end
        local ddp, z3 = by.ddp, by.zero3
        local where = "results pane (3): the planner's table"
        local v = {
          checks.equals{ value = lab.answer("replica"), expected = yesno(ddp.fits), answer = true,
                         missing = "press a to answer", what = "a replica fits one GPU", where = where },
          checks.equals{ value = lab.answer("full_shard"), expected = yesno(z3.fits), answer = true,
                         missing = "press a to answer", what = "FULL_SHARD fits", where = where },
        }
        local a = tonumber(lab.answer("gb_full_shard") or "")
        if not a then
          local given = lab.answer("gb_full_shard")
          v[#v + 1] = { ok = false, msg = "GB per GPU under FULL_SHARD: " .. (given and "not a number" or
                        "not answered yet - press a to answer"), saw = given or "no answer yet",
                        wanted = "a number of GB", where = where }
        else
          v[#v + 1] = checks.close{ value = a, expected = z3.states_b / GB, rtol = 0.05,
                                    what = "GB per GPU of FULL_SHARD's parameters, gradients and AdamW states",
                                    where = where .. ", column 'states'" }
        end
        return v
      end,
    },
    {
      id = "attempt", title = "Exercise: an FSDP configuration that runs",
      text = "steps/02-attempt.md",
      exercise = "config.lua",
      hints = { "Read where the out-of-memory error happened: in the forward, the activations every layer keeps for " ..
                "backward; in the optimizer step, AdamW's states. The planner's table lists what each option saves.",
                "checkpoint = true keeps one tensor per layer instead of all of them; offload = true moves the fp32 " ..
                "master copy and AdamW's m and v (12 of the 16 bytes per parameter) to the CPU.",
                "On 8 H100s: sharding = \"FULL_SHARD\", checkpoint = true, offload = true, micro_batch = 1, seq = 4096." },
      run = function(lab)
        local n = BIG_RANKS
        local cfg, err = read_config(lab, lab.exercise)
        if not cfg then return { err = err } end
        lab.progress(0, string.format("Llama-2-70B, %s, %d ranks, on phantom tensors", cfg.sharding, n))
        local res = lab.spmd("scripts/attempt.lua", big_opts(lab, { ranks = n, args = config_args(cfg, 2), timeout = 300 }))
        lab.log("Llama-2-70B on " .. big_where(lab, res))
        local p = row_with(res, "plan")
        local peak = 0
        for r = 0, n - 1 do
          local row = row_with(res, "peak", r)
          if row and row.peak > peak then peak = row.peak end
        end
        local s = row_with(res, "summary")
        lab.table{ title = string.format("your configuration on %d ranks (%s)", n, big_where(lab, res)),
                   columns = { "", "" },
                   rows = { { "sharding / checkpoint / offload", string.format("%s / %s / %s", cfg.sharding,
                                                                               yesno(cfg.checkpoint), yesno(cfg.offload)) },
                            { "micro-batch x sequence", string.format("%d x %d", cfg.micro_batch, cfg.seq) },
                            { "the run", res.ok and "finished 2 steps" or ("stopped: " .. failure(res)) },
                            { "measured peak per rank (GB)", res.ok and gb(peak) or "-" },
                            { "planner's peak (GB)", gb(p and p.plan_peak) },
                            { "planner: peak at", p and p.plan_at or "-" },
                            { "planner: runs out at", p and (p.plan_over_at or "never") or "-" },
                            { "GPU memory (GB)", gb(p and p.gpu_bytes) } } }
        if res.ok then lab.record("peak_gb", peak / GB) end
        return { res = res, p = p, peak = peak, s = s, n = n }
      end,
      check = function(lab, out)
        if out.err then
          return { ok = false, msg = out.err, saw = out.err, wanted = "a configuration table", where = "config.lua" }
        end
        local where = "results pane (3), table 'your configuration'"
        if not out.res.ok then
          local why = failure(out.res)
          local oom = why:find("out of memory", 1, true)
          local msg = oom and ("out of memory - " .. why:match("^[^:]*") .. ": change config.lua until it fits "
                               .. "(the planner's table of step 1 says which configurations fit)")
                      or ("the run failed: " .. why)
          return { ok = false, msg = msg, saw = why, wanted = "two training steps within each GPU's memory",
                   where = "log pane (5); config.lua" }
        end
        return checks.close{ value = out.peak / GB, expected = out.p.plan_peak / GB, rtol = 0.10,
                             what = "measured peak per rank (GB) against the planner's", where = where }
      end,
    },
    {
      id = "prefetch", title = "Exercise: prefetch, and the timeline",
      text = "steps/03-prefetch.md",
      exercise = "prefetch.lua",
      hints = { "In before_forward, after waiting for units[i], gather units[i + 1] too (if it exists and is not " ..
                "gathered yet: u.full is nil) with the same gather(u, stream). Backward walks down: units[i - 1].",
                "local nxt = units[i + 1]; if nxt and not nxt.full then gather(nxt, stream) end - the all-gather is " ..
                "queued on the communication stream before unit i's compute, so the two run together." },
      run = function(lab)
        local n = BIG_RANKS
        local args = { "70b" }
        for _, a in ipairs(config_args(TIMED, 2)) do args[#args + 1] = a end
        lab.progress(0, "Llama-2-70B without prefetch, " .. n .. " ranks")
        local off = lab.spmd("scripts/attempt.lua", big_opts(lab, { ranks = n, args = config_args(TIMED, 2), timeout = 300 }))
        lab.log("Llama-2-70B on " .. big_where(lab, off))
        lab.progress(0.4, "Llama-2-70B with your prefetch.lua")
        local on = lab.spmd(lab.exercise, big_opts(lab, { ranks = n, args = args, timeout = 300 }))
        -- the proxy has real numbers: it runs on this machine
        lab.progress(0.75, "the proxy with real numbers (this machine): without and with your prefetch")
        local pargs = { tostring(PROXY_STEPS), tostring(PROXY_MB) }
        local ref = lab.spmd("scripts/proxy.lua", { ranks = PROXY_RANKS, args = pargs, timeout = 120 })
        local mine = lab.spmd(lab.exercise, { ranks = PROXY_RANKS, args = { "proxy", pargs[1], pargs[2] }, timeout = 120 })
        local a, b = row_with(off, "summary"), row_with(on, "summary")
        local tf
        -- the peak TFLOPS of the GPU the 70B was modelled on
        local ok, topo = pcall(lab.topo, { machine = big_machine(lab) })
        if ok and topo and topo.gpus and topo.gpus[1] then tf = topo.gpus[1].bf16_tflops end
        local function col(s)
          if not s then return { "-", "-", "-", "-", "-", "-", "-" } end
          local sec = s.step_ms / 1000
          local per_gpu = s.flops / sec / s.world
          return { f1(s.step_ms), f1(s.comm_ms), f1(s.exposed_ms), pct(1 - s.exposed_ms / s.comm_ms),
                   string.format("%.0f", s.tokens / sec / s.world), string.format("%.0f", per_gpu / 1e12),
                   tf and pct(per_gpu / (tf * 1e12)) or "-" }
        end
        local ca, cb = col(a), col(b)
        local names = { "step time (ms)", "all-gathers + reduce-scatters (ms)", "exposed: the compute stream waited (ms)",
                        "communication hidden", "tokens/s per GPU", "model TFLOP/s per GPU",
                        "MFU (of " .. (tf and string.format("%.0f", tf) or "?") .. " TFLOP/s bf16)" }
        local t = {}
        for i, nm in ipairs(names) do t[#t + 1] = { nm, ca[i], cb[i] } end
        lab.table{ title = string.format("Llama-2-70B, FULL_SHARD + checkpointing + offload, %d ranks, micro-batch 1 "
                                         .. "x 4096 (MODELLED on the %s)", n, big_where(lab, off)),
                   columns = { "", "no prefetch", "your prefetch" }, rows = t }
        lab.table{ title = "published figures (real machines, for comparison)",
                   columns = { "run", "tokens/s per GPU", "model TFLOP/s per GPU or MFU", "source" }, rows = PUBLISHED }
        if b then lab.record("exposed_ms", b.exposed_ms); lab.record("step_ms", b.step_ms) end
        return { off = off, on = on, ref = ref, mine = mine, a = a, b = b }
      end,
      check = function(lab, out)
        if not out.off.ok then
          return broken(out.off, "the 70B run without prefetch (FULL_SHARD + checkpointing + offload)",
                        "log pane (5): the planner's table of step 1 says whether it fits this machine")
        end
        if not out.on.ok then return broken(out.on, "your prefetch.lua on the 70B") end
        if not out.ref.ok then return broken(out.ref, "the proxy without prefetch") end
        if not out.mine.ok then return broken(out.mine, "your prefetch.lua on the proxy") end
        local x, y = row_with(out.ref, "checksum"), row_with(out.mine, "checksum")
        local a, b = out.a, out.b
        local fell = a.exposed_ms > 0 and 1 - b.exposed_ms / a.exposed_ms or 0
        return {
          { ok = (b.early or 0) == 0,
            msg = (b.early or 0) == 0 and "every unit's compute was queued after its all-gather had ended"
                  or string.format("%d units' compute could start before their all-gather ended, the first in %s: "
                                   .. "the default stream must wait for the unit's event", b.early, tostring(b.early_at)),
            saw = string.format("%d early", b.early or 0), wanted = "0",
            where = "your prefetch.lua: mgpu.default_stream():wait(u.ready) before the hook returns" },
          { ok = fell >= 0.5,
            msg = string.format("exposed communication: %.1f ms without prefetch, %.1f ms with yours: %.0f %% less "
                                .. "(wanted at least 50 %% less)", a.exposed_ms, b.exposed_ms, 100 * fell),
            saw = string.format("%.1f ms -> %.1f ms", a.exposed_ms, b.exposed_ms),
            wanted = string.format("<= %.1f ms with your prefetch", a.exposed_ms / 2),
            where = "results pane (3), row 'exposed'; timeline pane (4): the comm row against the default row" },
          checks.equals{ value = y.checksum, expected = x.checksum,
                         what = "the proxy's parameters after " .. PROXY_STEPS .. " steps, with your prefetch vs without",
                         where = "your prefetch.lua: a unit used before its all-gather finished, or gathered twice?" },
        }
      end,
    },
    {
      id = "proxy", title = "Real numbers: the same FSDP on a proxy",
      text = "steps/04-proxy.md",
      run = function(lab)
        lab.progress(0, "the proxy on " .. PROXY_RANKS .. " ranks: FSDP and the unsharded reference")
        local res = lab.spmd("scripts/proxy.lua", { ranks = PROXY_RANKS, args = { tostring(PROXY_STEPS), tostring(PROXY_MB) },
                                                    timeout = 120 })
        local s = row_with(res, "proxy")
        if s then
          local ra, fa = {}, {}
          for v in s.ref_losses:gmatch("%S+") do ra[#ra + 1] = v end
          for v in s.fsdp_losses:gmatch("%S+") do fa[#fa + 1] = v end
          local t = {}
          for i = 1, #ra do t[#t + 1] = { tostring(i), ra[i], fa[i] or "-" } end
          lab.table{ title = string.format("loss: one unsharded model on %d sequences vs FSDP over %d ranks x %d",
                                           s.global_batch, PROXY_RANKS, s.micro_batch),
                     columns = { "step", "reference", "FSDP" }, rows = t }
          lab.table{ title = "after " .. s.steps .. " steps", columns = { "", "" },
                     rows = { { "parameters", string.format("%d (3 layers, dim 64, FFN 160, 4 heads / 2 KV heads)", s.params) },
                              { "largest |FSDP - reference|", string.format("%.3g", s.worst) },
                              { "in", s.worst_param } } }
        end
        return { res = res, s = s }
      end,
      check = function(lab, out)
        if not out.res.ok or not out.s then return broken(out.res, "the proxy") end
        local s = out.s
        local ra, fa = {}, {}
        for v in s.ref_losses:gmatch("%S+") do ra[#ra + 1] = tonumber(v) end
        for v in s.fsdp_losses:gmatch("%S+") do fa[#fa + 1] = tonumber(v) end
        return {
          { ok = s.worst <= 1e-4,
            msg = string.format("FSDP's parameters after %d steps differ from the unsharded reference's by at most %.3g "
                                .. "(in %s); tolerance 1e-4 (f32 sums in another order)", s.steps, s.worst, s.worst_param),
            saw = string.format("%.3g", s.worst), wanted = "<= 1e-4", where = "results pane (3), table 'after'" },
          checks.close{ value = fa[#fa], expected = ra[#ra], rtol = 1e-4, what = "the last step's loss, FSDP vs reference",
                        where = "results pane (3), table 'loss'" },
        }
      end,
    },
  },
}
