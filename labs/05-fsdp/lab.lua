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
    return g == 1 and L("SIMULATED %s, the note's 8 H100s: this machine has %d GPU", m, g)
           or L("SIMULATED %s, the note's 8 H100s: this machine has %d GPUs", m, g)
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

-- The error that stopped a run: the failed rank's first (the others'
-- are usually only "the communicator was aborted" because of it).
local function failure(res)
  if not res then return L("no result") end
  local first = res.failed_rank and res.ranks and res.ranks[res.failed_rank]
  if first and first.error then return (tostring(first.error):gsub("\n.*", "")) end
  for r = 0, 15 do
    local rk = res.ranks and res.ranks[r]
    if rk and rk.error then return (tostring(rk.error):gsub("\n.*", "")) end
  end
  return tostring(res.reason)
end

local function broken(res, what, where)
  local why = failure(res)
  return { ok = false, msg = L("%s did not finish: %s", what, why), saw = why, wanted = L("every rank finishes"),
           where = where or L("log pane (5)") }
end

-- The learner's configuration (step 2's exercise), checked before it runs.
local KNOWN = { sharding = "string", offload = "boolean", checkpoint = "boolean", micro_batch = "number", seq = "number" }
local STRATEGIES = { FULL_SHARD = true, SHARD_GRAD_OP = true, NO_SHARD = true }
local function read_config(lab, path)
  local ok, cfg = pcall(lab.load, path)
  if not ok then return nil, L("config.lua does not load: %s", tostring(cfg)) end
  if type(cfg) ~= "table" then return nil, L("config.lua must return a table") end
  for k, v in pairs(cfg) do
    if not KNOWN[k] then
      return nil, L("config.lua: unknown key '%s' (the keys: sharding, offload, checkpoint, micro_batch, seq)", tostring(k))
    end
    if type(v) ~= KNOWN[k] then return nil, L("config.lua: %s must be a %s", k, KNOWN[k]) end
  end
  if not STRATEGIES[cfg.sharding or "FULL_SHARD"] then
    return nil, L("config.lua: sharding '%s' is not FULL_SHARD, SHARD_GRAD_OP or NO_SHARD", cfg.sharding)
  end
  for _, k in ipairs{ "micro_batch", "seq" } do
    local v = cfg[k]
    if v and (math.type(v) ~= "integer" or v < 1 or v > (k == "seq" and 32768 or 64)) then
      return nil, L("config.lua: %s must be a whole number from 1 to %d", k, k == "seq" and 32768 or 64)
    end
  end
  return { sharding = cfg.sharding or "FULL_SHARD", offload = cfg.offload == true, checkpoint = cfg.checkpoint == true,
           micro_batch = cfg.micro_batch or 1, seq = cfg.seq or 4096 }
end
local function config_args(c, steps)
  return { c.sharding, c.offload and "1" or "0", c.checkpoint and "1" or "0", tostring(c.micro_batch), tostring(c.seq),
           tostring(steps) }
end

-- What the planner says the bytes of a configuration are (train.big's
-- plan row), largest first: for an out-of-memory verdict, so the learner
-- sees which part to shrink.
local function bytes_of(p)
  if not (p and p.plan_params) then return "" end
  local parts = { { L("the parameters"), p.plan_params }, { L("the gradients"), p.plan_grads },
                  { L("AdamW's states (fp32 master, m, v; made at the first optimizer step)"), p.plan_optim },
                  { L("the activations kept for backward"), p.plan_acts } }
  table.sort(parts, function(x, y) return x[2] > y[2] end)
  local t = {}
  for i, x in ipairs(parts) do t[i] = x[1] .. " " .. gb(x[2]) .. " GB" end
  return L("The planner's bytes per GPU for your configuration, largest first: %s (the GPU: %s GB)",
           table.concat(t, ", "), gb(p.gpu_bytes))
end

-- Llama 2's context: the sequence length the run trains.
local LLAMA_SEQ = 4096

-- The configuration step 3 times: the one that fits 8 H100s.
local TIMED = { sharding = "FULL_SHARD", offload = true, checkpoint = true, micro_batch = 1, seq = LLAMA_SEQ }

local function yesno(b) return b and "yes" or "no" end

-- Step 1's planner table, shown once the three questions are answered:
-- by the run, or by the check when an answer re-judges the kept run.
local function planner_answered(lab)
  return lab.answer("replica") and lab.answer("full_shard") and lab.answer("gb_full_shard") and true or false
end
local function planner_table(lab, out)
  local t = {}
  for _, r in ipairs(out.cfgs) do
    t[#t + 1] = { r.label, gb(r.params_b), gb(r.grads_b), gb(r.optim_b), gb(r.states_b), gb(r.peak_b),
                  r.at, yesno(r.fits), r.over_at or "-" }
  end
  lab.table{ title = L("GB per GPU, %d ranks, micro-batch 1, seq 4096 unless said (GPU: %s GB; fits: the peak leaves 5 %% of it free; %s)",
                       out.n, gb(out.m and out.m.gpu_bytes), big_where(lab, out.res)),
             columns = { L("strategy"), L("params"), L("grads"), L("optimizer"), L("states"), L("peak"), L("peak at"),
                         L("fits"), L("runs out at") }, rows = t }
  out.shown = true
end

-- Published figures for 70B-class training (step 3's table), made at run
-- time: the runs' descriptions are in the learner's language.
local function published()
  return {
    { L("NVIDIA NeMo 24.07, Llama-2-70B, 64 H100 (TP4 PP4, FP8, seq 4096)"), "1717", "763",
      "NVIDIA/NeMo docs/source/performance/performance_summary.md" },
    { L("Llama 2 70B pretraining, A100-80GB: 1,720,320 GPU-hours for 2.0T tokens"), L("~323 (derived)"), "-",
      "Touvron et al. 2023, arXiv:2307.09288, tables 1-2" },
    { L("Llama 3 405B pretraining, 8K-16K H100, BF16"), "-", "38-43 % MFU",
      "Llama Team 2024, arXiv:2407.21783, table 4" },
  }
end

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
                "The parameter count (the first table) times the bytes per parameter is one replica's states; "
                .. "FULL_SHARD's share is that over the ranks. Compare each with one GPU's memory (the first table's "
                .. "last row) - and remember that it is before a single activation is kept." },
      run = function(lab)
        local n = BIG_RANKS
        lab.progress(0, L("the planner for %d GPUs", n))
        local res = lab.spmd("scripts/plan.lua", big_opts(lab, { ranks = 1, args = { tostring(n) }, timeout = 60 }))
        lab.log(L("the planner plans for %s", big_where(lab, res)))
        local m = row_with(res, "machine")
        local cfgs = {}
        for _, row in ipairs(rows(res, 0)) do if row.config then cfgs[#cfgs + 1] = row end end
        table.sort(cfgs, function(a, b) return a.order < b.order end)
        if m then
          lab.table{ title = L("Llama-2-70B from its shapes"), columns = { "", "" },
                     rows = { { L("layers / hidden / FFN"), string.format("%d / %d / %d", m.layers, m.dim, m.ffn) },
                              { L("heads / KV heads / vocabulary"), string.format("%d / %d / %d", m.heads, m.kv_heads, m.vocab) },
                              { L("parameters (counted from the shapes)"), L("%.2f billion", m.params / 1e9) },
                              { L("the machine planned for"), L("%d GPUs of %s GB (%.2f GiB): %s", n,
                                                                gb(m.gpu_bytes), m.gpu_bytes / 2 ^ 30,
                                                                big_where(lab, res)) } } }
        end
        local out = { res = res, m = m, cfgs = cfgs, n = n }
        if planner_answered(lab) then planner_table(lab, out)
        else lab.log(L("the planner's table appears once you have answered the three questions (press a)")) end
        return out
      end,
      check = function(lab, out)
        if not out.res.ok or not out.m then return broken(out.res, L("the planner")) end
        local by = {}
        for _, r in ipairs(out.cfgs) do by[r.config] = r end
        local ddp, z3 = by.ddp, by.zero3
        local where = L("step text: the shapes and the 16 bytes per parameter; results pane (3): the planner's table, once all three are answered")
        local v = {
          checks.equals{ value = lab.answer("replica"), expected = yesno(ddp.fits), answer = true,
                         what = L("a replica fits one GPU"), where = where },
          checks.equals{ value = lab.answer("full_shard"), expected = yesno(z3.fits), answer = true,
                         what = L("FULL_SHARD fits"), where = where },
        }
        v[#v + 1] = checks.close{ value = lab.answer("gb_full_shard"), expected = z3.states_b / GB, rtol = 0.05,
                                  answer = true,
                                  what = L("GB per GPU of FULL_SHARD's parameters, gradients and AdamW states"),
                                  where = L("%s (column 'states')", where) }
        -- answering re-judges the kept run (no new run): the table the
        -- answers unlock is drawn here then, once
        if planner_answered(lab) and not out.shown then planner_table(lab, out) end
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
                "master copy and AdamW's m and v (12 of the 16 bytes per parameter) to the CPU - ZeRO-Offload's " ..
                "optimizer offload, not PyTorch FSDP's CPUOffload.",
                "An out-of-memory verdict lists the planner's bytes for your configuration, largest first: turn on "
                .. "the option that shrinks the largest part, run again, and read the next verdict - on 8 H100s one "
                .. "option is not enough, and the sequence stays 4096 tokens." },
      run = function(lab)
        local n = BIG_RANKS
        local cfg, err = read_config(lab, lab.exercise)
        if not cfg then return { err = err } end
        if cfg.seq ~= LLAMA_SEQ then
          return { err = L("config.lua trains %d-token sequences: the run is Llama 2's, %d tokens each - make the memory fit with how FSDP shards, checkpoints and offloads, not by cutting the work",
                           cfg.seq, LLAMA_SEQ),
                   saw = "seq = " .. cfg.seq, wanted = "seq = " .. LLAMA_SEQ }
        end
        lab.progress(0, L("Llama-2-70B, %s, %d ranks, on phantom tensors", cfg.sharding, n))
        local res = lab.spmd("scripts/attempt.lua", big_opts(lab, { ranks = n, args = config_args(cfg, 2), timeout = 300 }))
        lab.log(L("Llama-2-70B on %s", big_where(lab, res)))
        local p = row_with(res, "plan")
        local peak = 0
        for r = 0, n - 1 do
          local row = row_with(res, "peak", r)
          if row and row.peak > peak then peak = row.peak end
        end
        local s = row_with(res, "summary")
        lab.table{ title = L("your configuration on %d ranks (%s)", n, big_where(lab, res)),
                   columns = { "", "" },
                   rows = { { L("sharding / checkpoint / offload"), string.format("%s / %s / %s", cfg.sharding,
                                                                                  yesno(cfg.checkpoint), yesno(cfg.offload)) },
                            { L("micro-batch x sequence"), string.format("%d x %d", cfg.micro_batch, cfg.seq) },
                            { L("the run"), res.ok and L("finished 2 steps") or L("stopped: %s", failure(res)) },
                            { L("measured peak per rank (GB)"), res.ok and gb(peak) or "-" },
                            { L("planner's peak (GB)"), gb(p and p.plan_peak) },
                            { L("planner: peak at"), p and p.plan_at or "-" },
                            { L("planner: runs out at"), p and (p.plan_over_at or L("never")) or "-" },
                            { L("GPU memory (GB)"), gb(p and p.gpu_bytes) } } }
        if res.ok then lab.record("peak_gb", peak / GB) end
        return { res = res, p = p, peak = peak, s = s, n = n }
      end,
      check = function(lab, out)
        if out.err then
          return { ok = false, msg = out.err, saw = out.saw or out.err, wanted = out.wanted or L("a configuration table"),
                   where = "config.lua" }
        end
        local where = L("results pane (3), table 'your configuration'")
        if not out.res.ok then
          local why = failure(out.res)
          local oom = why:find("out of memory", 1, true)
          local msg = oom and L("out of memory - %s. %s: change config.lua until it fits (the planner's table of step 1 says which configurations fit)",
                                why:match("^[^:]*"), bytes_of(out.p))
                      or L("the run failed: %s", why)
          return { ok = false, msg = msg, saw = why, wanted = L("two training steps within each GPU's memory"),
                   where = L("log pane (5); config.lua") }
        end
        return checks.close{ value = out.peak / GB, expected = out.p.plan_peak / GB, rtol = 0.10,
                             what = L("measured peak per rank (GB) against the planner's"), where = where }
      end,
    },
    {
      id = "prefetch", title = "Exercise: prefetch, and the timeline",
      text = "steps/03-prefetch.md",
      exercise = "prefetch.lua",
      hints = { "On the timeline, while a unit computes the comm row is idle, and the next unit's all-gather starts "
                .. "only when its own hook runs. Which all-gather could already be on its way while unit i computes?",
                "In before_forward, after waiting for units[i], also start the all-gather of the unit that runs next, "
                .. "with the same gather() and the hook's stream, if it is not gathered yet (u.full is nil). The "
                .. "backward walks down, from the head to the embedding.",
                "A unit gathered ahead is waited for in its own hook, when it is the unit at work - not in the hook "
                .. "that started its all-gather: a wait there makes the compute stand still for it again." },
      run = function(lab)
        local n = BIG_RANKS
        local args = { "70b" }
        for _, a in ipairs(config_args(TIMED, 2)) do args[#args + 1] = a end
        lab.progress(0, L("Llama-2-70B without prefetch, %d ranks", n))
        local off = lab.spmd("scripts/attempt.lua", big_opts(lab, { ranks = n, args = config_args(TIMED, 2), timeout = 300 }))
        lab.log(L("Llama-2-70B on %s", big_where(lab, off)))
        lab.progress(0.4, L("Llama-2-70B with your prefetch.lua"))
        local on = lab.spmd(lab.exercise, big_opts(lab, { ranks = n, args = args, timeout = 300 }))
        -- the proxy has real numbers: it runs on this machine
        lab.progress(0.75, L("the proxy with real numbers (this machine): without and with your prefetch"))
        local pargs = { tostring(PROXY_STEPS), tostring(PROXY_MB) }
        local ref = lab.spmd("scripts/proxy.lua", { ranks = PROXY_RANKS, args = pargs, timeout = 120 })
        local mine = lab.spmd(lab.exercise, { ranks = PROXY_RANKS, args = { "proxy", pargs[1], pargs[2] }, timeout = 120 })
        local a, b = row_with(off, "summary"), row_with(on, "summary")
        local tf
        -- the peak TFLOPS of the GPU the 70B was modelled on
        local ok, topo = pcall(lab.topo, { machine = big_machine(lab) })
        if ok and topo and topo.gpus and topo.gpus[1] then tf = topo.gpus[1].bf16_tflops end
        local function col(s)
          if not s then return { "-", "-", "-", "-", "-", "-", "-", "-", "-" } end
          local sec = s.step_ms / 1000
          local per_gpu = s.flops / sec / s.world
          return { f1(s.step_ms), f1(s.comm_ms), f1(s.exposed_ms), f1(s.fwd_exposed_ms), f1(s.bwd_exposed_ms),
                   pct(1 - s.exposed_ms / s.comm_ms),
                   string.format("%.0f", s.tokens / sec / s.world), string.format("%.0f", per_gpu / 1e12),
                   tf and pct(per_gpu / (tf * 1e12)) or "-" }
        end
        local ca, cb = col(a), col(b)
        local names = { L("step time (ms)"), L("all-gathers + reduce-scatters (ms)"), L("exposed: the compute stream waited (ms)"),
                        L("  of it in the forward (ms)"), L("  of it in the backward (ms)"), L("communication hidden"),
                        L("tokens/s per GPU"), L("model TFLOP/s per GPU"),
                        L("MFU (of %s TFLOP/s bf16)", tf and string.format("%.0f", tf) or "?") }
        local t = {}
        for i, nm in ipairs(names) do t[#t + 1] = { nm, ca[i], cb[i] } end
        lab.table{ title = L("Llama-2-70B, FULL_SHARD + checkpointing + optimizer offload, %d ranks, micro-batch 1 x 4096 (MODELLED on the %s)",
                             n, big_where(lab, off)),
                   columns = { "", L("no prefetch"), L("your prefetch") }, rows = t }
        lab.table{ title = L("published figures (real machines, for comparison)"),
                   columns = { L("run"), L("tokens/s per GPU"), L("model TFLOP/s per GPU or MFU"), L("source") },
                   rows = published() }
        if b then lab.record("exposed_ms", b.exposed_ms); lab.record("step_ms", b.step_ms) end
        return { off = off, on = on, ref = ref, mine = mine, a = a, b = b }
      end,
      check = function(lab, out)
        if not out.off.ok then
          return broken(out.off, L("the 70B run without prefetch (FULL_SHARD + checkpointing + offload)"),
                        L("log pane (5): the planner's table of step 1 says whether it fits this machine"))
        end
        if not out.on.ok then return broken(out.on, L("your prefetch.lua on the 70B")) end
        if not out.ref.ok then return broken(out.ref, L("the proxy without prefetch")) end
        if not out.mine.ok then return broken(out.mine, L("your prefetch.lua on the proxy")) end
        local x, y = row_with(out.ref, "checksum"), row_with(out.mine, "checksum")
        local a, b = out.a, out.b
        -- each pass on its own: a prefetch in one of them halves the sum
        -- without the other
        local function pass(key, name, hook)
          local was, now = a[key], b[key]
          local fell = was > 0 and 1 - now / was or 0
          return { ok = fell >= 0.5,
                   msg = L("exposed communication in the %s: %.1f ms without prefetch, %.1f ms with yours: %.0f %% less (wanted at least 50 %% less in each pass)",
                           name, was, now, 100 * fell),
                   saw = string.format("%s: %.1f ms -> %.1f ms", name, was, now),
                   wanted = L("<= %.1f ms in the %s with your prefetch", was / 2, name),
                   where = L("results pane (3), row 'of it in the %s'; timeline pane (4): the comm row against the default row; your prefetch.lua: %s",
                             name, hook) }
        end
        local early, ahead, off = b.early or 0, b.waited_ahead or 0, b.off_stream or 0
        return {
          { ok = early == 0,
            msg = early == 0 and L("every unit's compute was queued after its all-gather had ended")
                  or early == 1 and L("%d unit's compute could start before its all-gather ended, the first in %s: the default stream must wait for the unit's event - also when an earlier hook gathered it",
                                      early, tostring(b.early_at))
                  or L("%d units' compute could start before their all-gather ended, the first in %s: the default stream must wait for the unit's event - also when an earlier hook gathered it",
                       early, tostring(b.early_at)),
            saw = L("%d early", early), wanted = "0",
            where = L("your prefetch.lua: which hook waits for a unit's event, and when") },
          { ok = off == 0,
            msg = off == 0 and L("every all-gather was queued on the hook's stream")
                  or off == 1 and L("%d all-gather was queued on a stream other than the hook's `stream`, the first %s: off the communicator's stream an all-gather runs between the layers' kernels, not beside them",
                                    off, tostring(b.off_stream_at))
                  or L("%d all-gathers were queued on a stream other than the hook's `stream`, the first %s: off the communicator's stream an all-gather runs between the layers' kernels, not beside them",
                       off, tostring(b.off_stream_at)),
            saw = L("%d on another stream", off), wanted = "0",
            where = L("your prefetch.lua: the stream each gather is queued on") },
          { ok = ahead == 0,
            msg = ahead == 0 and L("no unit gathered ahead was waited for before the unit at work computed")
                  or ahead == 1 and L("%d unit was gathered ahead but waited for at once, the first %s: the default stream stood still until it arrived, so it overlapped nothing",
                                      ahead, tostring(b.waited_ahead_at))
                  or L("%d units were gathered ahead but waited for at once, the first %s: the default stream stood still until it arrived, so it overlapped nothing",
                       ahead, tostring(b.waited_ahead_at)),
            saw = L("%d waited for at once", ahead), wanted = "0",
            where = L("your prefetch.lua: which unit's event the default stream waits for in each hook") },
          pass("fwd_exposed_ms", "forward", "before_forward"),
          pass("bwd_exposed_ms", "backward", "before_backward"),
          checks.equals{ value = y.checksum, expected = x.checksum,
                         what = L("the proxy's parameters after %d steps, with your prefetch vs without", PROXY_STEPS),
                         where = L("your prefetch.lua: a unit used before its all-gather finished, or gathered twice?") },
        }
      end,
    },
    {
      id = "proxy", title = "Real numbers: the same FSDP on a proxy",
      text = "steps/04-proxy.md",
      run = function(lab)
        lab.progress(0, L("the proxy on %d ranks: FSDP and the unsharded reference", PROXY_RANKS))
        local res = lab.spmd("scripts/proxy.lua", { ranks = PROXY_RANKS, args = { tostring(PROXY_STEPS), tostring(PROXY_MB) },
                                                    timeout = 120 })
        local s = row_with(res, "proxy")
        if s then
          local ra, fa = {}, {}
          for v in s.ref_losses:gmatch("%S+") do ra[#ra + 1] = v end
          for v in s.fsdp_losses:gmatch("%S+") do fa[#fa + 1] = v end
          local t = {}
          for i = 1, #ra do t[#t + 1] = { tostring(i), ra[i], fa[i] or "-" } end
          lab.table{ title = L("loss: one unsharded model on %d sequences vs FSDP over %d ranks x %d",
                               s.global_batch, PROXY_RANKS, s.micro_batch),
                     columns = { L("step"), L("reference"), "FSDP" }, rows = t }
          lab.table{ title = L("after %d steps", s.steps), columns = { "", "" },
                     rows = { { L("parameters"), L("%d (3 layers, dim 64, FFN 160, 4 heads / 2 KV heads)", s.params) },
                              { L("largest |FSDP - reference|"), string.format("%.3g", s.worst) },
                              { L("in"), s.worst_param } } }
        end
        return { res = res, s = s }
      end,
      check = function(lab, out)
        if not out.res.ok or not out.s then return broken(out.res, L("the proxy")) end
        local s = out.s
        local ra, fa = {}, {}
        for v in s.ref_losses:gmatch("%S+") do ra[#ra + 1] = tonumber(v) end
        for v in s.fsdp_losses:gmatch("%S+") do fa[#fa + 1] = tonumber(v) end
        return {
          { ok = s.worst <= 1e-4,
            msg = L("FSDP's parameters after %d steps differ from the unsharded reference's by at most %.3g (in %s); tolerance 1e-4 (f32 sums in another order)",
                    s.steps, s.worst, s.worst_param),
            saw = string.format("%.3g", s.worst), wanted = "<= 1e-4", where = L("results pane (3), table 'after'") },
          checks.close{ value = fa[#fa], expected = ra[#ra], rtol = 1e-4, what = L("the last step's loss, FSDP vs reference"),
                        where = L("results pane (3), table 'loss'") },
        }
      end,
    },
  },
}
