-- labs/11-pipeline/lab.lua - pipeline and sequence parallelism by hand.
-- The learner writes GPipe, then 1F1B, with send/recv between the four
-- stages of a small decoder (labs/lib/nn/pipe.lua cuts nn.transformer's
-- decoder into stages, keeps each micro-batch's activations and trains an
-- unpipelined copy to compare with); measures the bubble from each stage's
-- timing events against (p-1)/(m+p-1) and mgpu.whatif; meets the deadlock
-- of two stages that both receive first, in the flight recorder; and
-- turns lab 6's TP layer into Megatron's sequence parallelism
-- (labs/lib/nn/sp.lua), proven by the flight recorder's counts and the
-- allocator's bytes.

local P = 4                          -- stages = ranks, every step
local GPIPE_M, ONEF_M = 4, 8         -- micro-batches of the checked runs
local BUBBLE_MS = { 1, 2, 4, 8 }     -- micro-batch counts of the bubble sweep
local FORMULA_RTOL = 0.10            -- the formula assumes equal stages and free transfers
local WHATIF_RTOL = 0.05             -- the issue's bar against mgpu.whatif
local SP_LAYERS = 2
local DEADLOCK_S = 10                -- the watchdog's limit in step 4: how long its hang lasts

local function pct(x) return type(x) == "number" and string.format("%.1f %%", 100 * x) or "-" end
local function e1(x) return type(x) == "number" and string.format("%.1e", x) or "-" end
local function kib(x) return type(x) == "number" and string.format("%.1f KiB", x / 1024) or "-" end

local function row_of(res, r)
  local rk = res and res.ranks and res.ranks[r]
  for _, row in ipairs(rk and rk.results or {}) do if row.rank == r then return row end end
end

-- The world communicator's flight entries of rank r.
local function flight_of(res, r)
  local rk = res and res.ranks and res.ranks[r]
  for _, comm in ipairs((rk and rk.flight) or {}) do
    if comm.comm == "world" then return comm.entries or {} end
  end
  return {}
end

local function short(where) return (tostring(where or "?"):gsub("^.*/", "")) end

-- A point-to-point entry's peer (the flight recorder's JSON calls it root).
local function peer_of(e) return math.tointeger(e.peer or e.root) end

-- A rank's error text, or nil.
local function error_of(res, r)
  local rk = res and res.ranks and res.ranks[r]
  return rk and rk.error and tostring(rk.error) or nil
end

-- An error of the communication itself (a receive the watchdog ended, a
-- communicator aborted because another rank failed), not of the script.
local function comm_error(text)
  return (text:find("comm:%a+:") or text:find("mgpu.group:", 1, true) or text:find("was aborted", 1, true)
          or text:find("did not complete within", 1, true) or text:find("sent no data", 1, true)
          or text:find("NCCL error", 1, true)) ~= nil
end

-- What each rank was stuck in when the run ended: {op, peer, where} from
-- its oldest world flight entry that did not complete (a stream runs its
-- calls in order: on a GPU the host has queued the calls after it too, and
-- they wait behind it), else from its error ("recv from rank 1"): the calls
-- of a group that hung can read "completed" in the sim's flight record.
local function stuck_of(res)
  local out = {}
  for r = 0, P - 1 do
    local last
    for _, e in ipairs(flight_of(res, r)) do
      if e.state ~= "completed" and (not last or e.seq < last.seq) then last = e end
    end
    if last then
      out[r] = { op = last.op, peer = peer_of(last), where = last.where }
    else
      local err = error_of(res, r)
      local peer = err and err:match("recv from rank (%d+)")
      if peer then out[r] = { op = "recv", peer = math.tointeger(tonumber(peer)), where = err:match("([%w_%-%.]+%.lua:%d+)") } end
    end
  end
  return out
end

-- The progress a failed rank reported (nn.pipe's row: step, forwards and
-- backwards done), or nil.
local function progress_of(res, r)
  local rk = res and res.ranks and res.ranks[r]
  for _, row in ipairs(rk and rk.results or {}) do if row.failed then return row end end
end

-- A run that did not finish: a rank's own error first (a wrong call, a
-- wrong shape); else a hang read from the flight records: a rank that moved
-- on to a later step while another waits for it (a missing send), a cycle
-- of receives (a deadlock), a receive nobody answers; else the first error.
local function broken(res, file)
  for r = 0, P - 1 do
    local err = error_of(res, r)
    if err and not comm_error(err) then
      return { ok = false, msg = L("your %s did not finish: rank %d: %s", file, r, err), saw = err,
               wanted = L("every rank finishes"), where = L("log pane (5); %s", file) }
    end
  end
  local stuck = stuck_of(res)
  local where = L("results pane (3): the flight records; %s", file)
  for a = 0, P - 1 do
    local ea = stuck[a]
    local b = ea and ea.op == "recv" and ea.peer
    local eb = b and stuck[b]
    if eb and eb.op == "recv" and eb.peer == a then
      local pa, pb = progress_of(res, a), progress_of(res, b)
      for _, x in ipairs{ { a, pa, b, pb, ea }, { b, pb, a, pa, eb } } do
        local waiter, wp, mover, mp, e = x[1], x[2], x[3], x[4], x[5]
        if wp and mp and mp.step > wp.step then
          return { ok = false,
                   msg = L("rank %d went on to step %d without sending rank %d what it waits for in step %d (recv at %s): "
                           .. "a send is missing", mover, mp.step, waiter, wp.step, short(e.where)),
                   saw = L("rank %d in step %d, rank %d in step %d", waiter, wp.step, mover, mp.step),
                   wanted = L("every receive meets a send"), where = where }
        end
      end
      return { ok = false,
               msg = L("the pipeline deadlocked: rank %d waits in recv from rank %d (%s) while rank %d waits in recv "
                       .. "from rank %d (%s); each waits for the other to send first, and nothing was sent",
                       a, b, short(ea.where), b, a, short(eb.where)),
               saw = L("rank %d: recv from %d; rank %d: recv from %d (flight recorder)", a, b, b, a),
               wanted = L("every rank finishes"), where = where }
    end
  end
  for a = 0, P - 1 do
    local ea = stuck[a]
    local b = ea and ea.op == "recv" and ea.peer
    if b and not (stuck[b] and stuck[b].op == "recv") then
      return { ok = false,
               msg = L("rank %d waits in recv from rank %d (%s), which never sent it anything: a receive here has no "
                       .. "send on rank %d to meet", a, b, short(ea.where), b),
               saw = L("rank %d: recv from %d, never answered (flight recorder)", a, b),
               wanted = L("every receive meets a send"), where = where }
    end
  end
  local why = tostring(res and res.reason)
  for r = 0, P - 1 do
    if error_of(res, r) then why = L("rank %d: %s", r, error_of(res, r)); break end
  end
  return { ok = false, msg = L("your %s did not finish: %s", file, why), saw = why, wanted = L("every rank finishes"),
           where = L("log pane (5); %s", file) }
end

local function flight_table(lab, res)
  local rows = {}
  for r = 0, P - 1 do
    local list = flight_of(res, r)
    local from = math.max(1, #list - 2)
    for k = from, #list do
      local e = list[k]
      rows[#rows + 1] = { tostring(r), tostring(e.seq), tostring(e.op), tostring(peer_of(e)), tostring(e.state), short(e.where) }
    end
  end
  lab.table{ title = L("flight records: each rank's last point-to-point calls"),
             columns = { L("rank"), "#", L("op"), L("peer"), L("state"), L("line") }, rows = rows }
  if res.analysis and res.analysis ~= "" then lab.log(L("flight recorder analysis: %s", res.analysis)) end
end

-- timeout: the watchdog's limit on one wait, and half the script's budget:
-- 15 s leaves room for 4 ranks emulated on one GPU (NCCL's start on each)
local function spmd(lab, args, timeout, extra)
  local o = { ranks = P, args = args, timeout = timeout or 15 }
  for k, v in pairs(extra or {}) do o[k] = v end
  return lab.spmd(lab.exercise, o)
end

--- The numbers: every stage against the unpipelined model ---------------

local function params_verdict(res, file)
  local bad = {}
  for s = 0, P - 1 do
    local row = row_of(res, s)
    if not row then
      return { ok = false, msg = L("stage %d reported nothing", s), saw = L("nothing"), wanted = L("a row per stage"),
               where = L("log pane (5)") }
    end
    if row.bad > 0 then bad[#bad + 1] = s end
  end
  if #bad == 0 then
    local r0 = row_of(res, 0)
    return { ok = true, msg = L("every stage's parameters equal the unpipelined model's after %d steps of %d micro-batches",
                                r0.steps, r0.m), saw = L("equal"), wanted = L("equal"), where = file }
  end
  local last_bad = bad[#bad]
  local row = row_of(res, last_bad)
  local w = row.worst or {}
  local detail = L("stage %d: %d of its %d parameters differ, the worst %s in %d of %d elements (largest error %s)",
                   last_bad, row.bad, row.params, tostring(w.name), w.bad or 0, w.count or 0, e1(w.err))
  -- where it starts: the first step's gradients (later steps carry a
  -- wrong weight's effect into every stage)
  local first_bad = {}
  for s = 0, P - 1 do
    if ((row_of(res, s) or {}).grad_bad or 0) > 0 then first_bad[#first_bad + 1] = s end
  end
  local k = first_bad[#first_bad]
  local msg
  if k and k < P - 1 and #first_bad == k + 1 then
    msg = L("after the first step stages 0-%d have gradients that differ from the unpipelined model's while the stages "
            .. "after them match: the gradient that flows back from stage %d is not the one stage %d computed. %s",
            k, k + 1, k + 1, detail)
  else
    msg = L("the pipelined model's parameters differ from the unpipelined model's after %d steps. %s", row.steps, detail)
  end
  return { ok = false, msg = msg, saw = e1(w.err),
           wanted = L("within rtol %s, atol %s", tostring(row.rtol), tostring(row.atol)), where = file }
end

--- 1F1B: the order of the forwards and backwards, and the memory ----------

-- How many forwards stage s ran before its first backward.
local function forwards_first(order)
  local n = 0
  for tok in tostring(order):gmatch("%S+") do
    if tok:sub(1, 1) == "B" then return n end
    n = n + 1
  end
  return n
end

local function one_f_one_b_order(s, m)
  local warm = math.min(P - s - 1, m)
  local t = {}
  for i = 1, warm do t[#t + 1] = "F" .. i end
  for i = warm + 1, m do t[#t + 1] = "F" .. i; t[#t + 1] = "B" .. (i - warm) end
  for i = m - warm + 1, m do t[#t + 1] = "B" .. i end
  return table.concat(t, " ")
end

-- peak_of(s) -> micro-batches stage s held at once; order_of(s) -> its F/B order or nil
local function schedule_verdict(m, peak_of, order_of, file)
  local where = L("%s: the warm-up, the steady state and the cool-down", file)
  for s = 0, P - 1 do
    local peak = peak_of(s)
    local limit = math.min(m, P - s)
    if peak and peak > limit then
      if peak >= m and s < P - 1 then
        return { ok = false,
                 msg = L("stage %d held all %d micro-batches' activations at once: every forward ran before the first "
                         .. "backward, which is GPipe's memory, not 1F1B's", s, m),
                 saw = L("stage %d: %d in flight", s, peak), wanted = L("fewer in flight than GPipe"), where = where }
      end
      return { ok = false,
               msg = L("stage %d held %d micro-batches' activations at once: more micro-batches in flight than 1F1B "
                       .. "needs; a stage only has to keep the stages after it busy until its first gradient comes back",
                       s, peak),
               saw = L("stage %d: %d in flight", s, peak), wanted = L("as few as 1F1B keeps"), where = where }
    end
  end
  for s = 0, P - 1 do
    local order = order_of and order_of(s)
    local want = one_f_one_b_order(s, m)
    if order and order ~= want then
      local fb = forwards_first(order)
      local msg
      if fb < math.min(P - s, m) then           -- 1F1B's first backward follows warm-up + 1 forwards
        msg = L("stage %d ran %d forwards before its first backward: fewer warm-up forwards than the stages after it "
                .. "need to fill the pipeline, so they wait. Its order: %s", s, fb, order)
      else
        msg = L("stage %d's order is not 1F1B's (after the warm-up, one forward then one backward, oldest first; then "
                .. "the backwards left): %s", s, order)
      end
      return { ok = false, msg = msg, saw = order, wanted = L("1F1B's order"), where = where }
    end
  end
  return { ok = true, msg = L("every stage runs 1F1B's order and keeps no more micro-batches than it needs"),
           saw = L("ok"), wanted = L("ok"), where = file }
end

local function schedule_table(lab, res, title)
  local t = {}
  for s = 0, P - 1 do
    local row = row_of(res, s) or {}
    t[#t + 1] = { tostring(s), tostring(row.modules or "-"), tostring(row.order or "-"), tostring(row.peak or "-"),
                  tostring(row.bad or "-"), row.worst and e1(row.worst.err) or (row.bad == 0 and L("within rtol") or "-") }
  end
  lab.table{ title = title,
             columns = { L("stage"), L("modules"), L("order (step 1)"), L("in flight (most)"), L("params differing"),
                         L("largest error") }, rows = t }
end

local steps = {}

--- Step 1: GPipe -----------------------------------------------------------

steps[#steps + 1] = {
  id = "gpipe", title = "Exercise: GPipe with send and recv",
  text = "steps/01-gpipe.md",
  exercise = "gpipe.lua",
  hints = { "A stage that is not the first has nothing to work on until its neighbour's activation arrives: "
            .. "st:buffer() gives a tensor to receive it into.",
            "What goes forward to st.next on the way out comes back from st.next as a gradient on the way back; "
            .. "the first and the last stage each have one neighbour only.",
            "Forward: receive from st.prev (unless first), forward, send to st.next (unless last). Backward mirrors "
            .. "it with st.next and st.prev swapped. Each micro-batch needs its own receive buffer." },
  run = function(lab)
    lab.progress(0, L("your gpipe.lua on %d stages, %d micro-batches, against the unpipelined model", P, GPIPE_M))
    local res = spmd(lab, { "check", tostring(GPIPE_M) })
    if not res.ok then flight_table(lab, res) end
    schedule_table(lab, res, L("each stage: its modules, its order, its activations in flight, against the unpipelined model"))
    local r0 = row_of(res, 0)
    if r0 and r0.peak then lab.record("gpipe_peak_stage0", r0.peak) end
    return { res = res }
  end,
  check = function(lab, out)
    if not out.res.ok then return broken(out.res, "gpipe.lua") end
    return params_verdict(out.res, "gpipe.lua")
  end,
}

--- Step 2: 1F1B ------------------------------------------------------------

steps[#steps + 1] = {
  id = "1f1b", title = "Exercise: 1F1B",
  text = "steps/02-1f1b.md",
  exercise = "1f1b.lua",
  hints = { "The last stage can run a micro-batch's backward the moment its forward is done. How many forwards "
            .. "must the stage before it have sent by then?",
            "A stage's warm-up is one forward for each stage after it, but never more than the micro-batches there "
            .. "are. Then each forward is followed by the backward of the oldest micro-batch still in flight.",
            "Three loops: the warm-up forwards; the steady state, forward i then backward i - warm; the cool-down, "
            .. "the backwards of the last warm micro-batches." },
  run = function(lab)
    lab.progress(0, L("your 1f1b.lua on %d stages, %d micro-batches", P, ONEF_M))
    local res = spmd(lab, { "check", tostring(ONEF_M) })
    if not res.ok then flight_table(lab, res) end
    schedule_table(lab, res, L("each stage under your 1F1B: its order, its activations in flight"))
    return { res = res }
  end,
  check = function(lab, out)
    local res = out.res
    if not res.ok then return broken(res, "1f1b.lua") end
    return { params_verdict(res, "1f1b.lua"),
             schedule_verdict(ONEF_M, function(s) return (row_of(res, s) or {}).peak end,
                              function(s) return (row_of(res, s) or {}).order end, "1f1b.lua") }
  end,
}

--- Step 3: the bubble --------------------------------------------------------

local function ideal(m) return (P - 1) / (m + P - 1) end

-- The bubble of one micro-batch count from every stage's own clocks, as
-- mgpu.whatif defines it: the pipeline's time is the slowest stage's
-- (each stage's timing events from the barrier before the schedule to its
-- end), and a stage's bubble is the share of it that it did not compute.
local function bubbles(res)
  local out = {}
  local r0 = row_of(res, 0)
  for k, t0 in ipairs(r0 and r0.times or {}) do
    local pipe, busy, peaks = 0, {}, {}
    for s = 0, P - 1 do
      local t = ((row_of(res, s) or {}).times or {})[k] or {}
      pipe = math.max(pipe, t.total_ms or 0)
      busy[s], peaks[s] = t.busy_ms or 0, t.peak
    end
    local idle = 0
    for s = 0, P - 1 do idle = idle + (pipe > 0 and 1 - busy[s] / pipe or 0) end
    out[#out + 1] = { m = t0.m, measured = idle / P, ideal = ideal(t0.m), whatif = t0.whatif,
                      whatif_error = t0.whatif_error, step_ms = pipe, peaks = peaks, fwd = t0.fwd_ms, bwd = t0.bwd_ms }
  end
  return out
end

-- The machine the bubble is timed on: this sim preset; on a real machine the
-- DGX H100 model (a what-if run, lab.spmd's `machine`): 4 ranks sharing
-- fewer GPUs would take turns on them, and a stage's bubble would be hidden
-- behind another stage's work. mgpu.whatif prices the same machine.
local TIMING_MACHINE = "dgx-h100"
local function whatif_machine(lab)
  return lab.backend.simulated and lab.backend.machine or TIMING_MACHINE
end

steps[#steps + 1] = {
  id = "bubble", title = "The bubble, measured",
  text = "steps/03-bubble.md",
  exercise = "1f1b.lua",                -- step 2's: the sweep runs your 1F1B
  questions = {
    { id = "m10", ask = "With p = 4 stages, what is the smallest number of micro-batches m for which "
                        .. "(p-1)/(m+p-1) is at most 10 %?" },
    { id = "gpipe", ask = "For the same p and m, is GPipe's bubble larger, smaller or the same as 1F1B's? "
                          .. "(larger/smaller/same)" },
  },
  hints = { "Solve (p-1)/(m+p-1) <= 0.1 for m, with p = 4.",
            "Draw both schedules for p = 2, m = 2 on squared paper: where does each stage idle?" },
  run = function(lab)
    local machine = whatif_machine(lab)
    lab.progress(0, L("your 1f1b.lua, timed at m = 1, 2, 4, 8 (a larger decoder%s)",
                      lab.backend.simulated and L(", phantom: modelled time only") or ""))
    local ms = {}
    for i, m in ipairs(BUBBLE_MS) do ms[i] = tostring(m) end
    local res = spmd(lab, { "time", table.concat(ms, ","), machine }, 30,
                     not lab.backend.simulated and { machine = TIMING_MACHINE } or nil)
    local b = res.ok and bubbles(res) or {}
    local t = {}
    for _, x in ipairs(b) do
      t[#t + 1] = { tostring(x.m), string.format("%.2f", x.step_ms), pct(x.measured), pct(x.ideal),
                    x.whatif and pct(x.whatif) or L("error"), tostring(x.peaks[0]) }
      lab.record("bubble_m" .. x.m, x.measured)
    end
    lab.table{ title = L("the bubble of your 1F1B on 4 stages (from each stage's timing events on the %s%s; "
                         .. "mgpu.whatif on %s)", res.whatif and "SIMULATED " or "", machine, machine),
               columns = { "m", L("pipeline ms"), L("measured"), "(p-1)/(m+p-1)", "mgpu.whatif", L("stage 0 in flight") },
               rows = t }
    return { res = res, b = b, machine = machine }
  end,
  check = function(lab, out)
    local res = out.res
    if not res.ok then return broken(res, "1f1b.lua") end
    if #out.b ~= #BUBBLE_MS then
      -- no figures: the script ran, but not the harness's timing mode
      return { ok = false, msg = L("the timing run reported %d of %d bubble figures: 1f1b.lua must hand mgpu.args on to "
                                   .. "pipe.run, which chooses the run", #out.b, #BUBBLE_MS),
               saw = tostring(#out.b), wanted = tostring(#BUBBLE_MS), where = "1f1b.lua: pipe.run{..., args = mgpu.args}" }
    end
    local v = {}
    v[#v + 1] = schedule_verdict(BUBBLE_MS[#BUBBLE_MS], function(s)
      local last = out.b[#out.b]
      return last and last.peaks[s]
    end, nil, "1f1b.lua")
    local worst_f, worst_w, at_f, at_w, werr = 0, 0, nil, nil, nil
    for _, x in ipairs(out.b) do
      local df = math.abs(x.measured - x.ideal) / x.ideal
      if df > worst_f then worst_f, at_f = df, x end
      if not x.whatif then werr = werr or x.whatif_error or "no figure"
      else
        local dw = math.abs(x.measured - x.whatif) / x.whatif
        if dw > worst_w then worst_w, at_w = dw, x end
      end
    end
    v[#v + 1] = worst_f <= FORMULA_RTOL
      and { ok = true, msg = L("the measured bubble is within %.0f %% of (p-1)/(m+p-1) at every m (at most %.1f %% off)",
                               100 * FORMULA_RTOL, 100 * worst_f), saw = pct(worst_f), wanted = pct(FORMULA_RTOL),
            where = L("results pane (3)") }
      or { ok = false,
           msg = L("at m = %d the measured bubble is %s, %.1f %% away from (p-1)/(m+p-1): the stages are not taking "
                   .. "turns as 1F1B does", at_f.m, pct(at_f.measured), 100 * worst_f),
           saw = pct(at_f.measured), wanted = L("within %.0f %% of the formula", 100 * FORMULA_RTOL),
           where = L("results pane (3); 1f1b.lua") }
    if werr then
      v[#v + 1] = { ok = false, msg = L("mgpu.whatif gave no figure: %s", werr), saw = tostring(werr),
                    wanted = L("a figure"), where = L("log pane (5)") }
    else
      v[#v + 1] = worst_w <= WHATIF_RTOL
        and { ok = true, msg = L("the measured bubble is within %.0f %% of mgpu.whatif's 1F1B on %s at every m (at most "
                                 .. "%.1f %% off)", 100 * WHATIF_RTOL, out.machine, 100 * worst_w),
              saw = pct(worst_w), wanted = pct(WHATIF_RTOL), where = L("results pane (3)") }
        or { ok = false,
             msg = L("at m = %d the measured bubble is %s and mgpu.whatif's is %s (%.1f %% apart)", at_w.m,
                     pct(at_w.measured), pct(at_w.whatif), 100 * worst_w),
             saw = pct(at_w.measured), wanted = L("within %.0f %% of mgpu.whatif", 100 * WHATIF_RTOL),
             where = L("results pane (3); 1f1b.lua") }
    end
    local where = L("step text: the bubble's formula; squared paper")
    local a = lab.answer("m10")
    local n = a and tonumber((a:gsub("%s", "")))
    v[#v + 1] = checks.equals{ value = a and (n and math.tointeger(n) and tostring(math.tointeger(n)) or a), expected = "27",
                               answer = true, what = L("the smallest m with a bubble of at most 10 %% on 4 stages"),
                               where = where }
    if not v[#v].ok and not v[#v].unanswered then v[#v].wanted = L("the m that solves the inequality") end
    v[#v + 1] = checks.equals{ value = lab.answer("gpipe"), expected = "same", answer = true,
                               what = L("GPipe's bubble against 1F1B's"), where = where }
    if not v[#v].ok and not v[#v].unanswered then v[#v].wanted = L("what your drawing shows") end
    return v
  end,
}

--- Step 4: the deadlock --------------------------------------------------------

steps[#steps + 1] = {
  id = "deadlock", title = "Exercise: two stages that both receive first",
  text = "steps/04-deadlock.md",
  exercise = "exchange.lua",
  hints = { "Run it as it is and read the flight records: which call is each stuck rank in, and from whom does it wait?",
            "send_forward_recv_backward on stage s talks to send_backward_recv_forward on stage s+1 at the same moment.",
            "Put each exchange's send and receive in one mgpu.group(function() ... end): NCCL starts a group's calls "
            .. "together, as Megatron's batch_isend_irecv does." },
  run = function(lab)
    lab.progress(0, L("your exchange.lua: 1F1B on %d stages, %d micro-batches (a hang ends after %d s)", P, ONEF_M,
                      DEADLOCK_S))
    -- one training step is enough to judge the fix, and keeps the run inside
    -- the script's budget (twice the watchdog's limit) on a GPU too
    local res = spmd(lab, { "check", tostring(ONEF_M), "1" }, DEADLOCK_S)
    flight_table(lab, res)
    return { res = res }
  end,
  check = function(lab, out)
    local res = out.res
    if not res.ok then return broken(res, "exchange.lua") end
    return { params_verdict(res, "exchange.lua"),
             schedule_verdict(ONEF_M, function(s) return (row_of(res, s) or {}).peak end,
                              function(s) return (row_of(res, s) or {}).order end, "exchange.lua") }
  end,
}

--- Step 5: sequence parallelism -----------------------------------------------------

local function count(c, op) return (c and c.by and c.by[op]) or 0 end

local function sp_verdicts(res)
  local v = {}
  local where_fg = L("sp.lua: F and G")
  local function numbers(key, what, where)
    for r = 0, P - 1 do
      local row = row_of(res, r) or {}
      local c = row[key]
      if not c or c.bad > 0 then
        return { ok = false, msg = L("rank %d: the %s differs from the unsharded layers' (its tokens) in %s of %s elements, "
                                     .. "largest error %s", r, what, tostring(c and c.bad), tostring(c and c.count),
                                     e1(c and c.err)),
                 saw = e1(c and c.err), wanted = L("within rtol %s, atol %s", tostring(row.rtol), tostring(row.atol)),
                 where = where }
      end
    end
    return { ok = true, msg = L("the %s equals the unsharded layers' on every rank's tokens", what), saw = L("equal"),
             wanted = L("equal"), where = where }
  end
  v[#v + 1] = numbers("fwd", L("output (2 layers)"), L("sp.lua: F:forward and G:forward"))
  v[#v + 1] = numbers("dx", L("input gradient"), L("sp.lua: F:backward and G:backward"))
  local grads = { ok = true, msg = L("every parameter gradient equals its slice of the unsharded layers'"), saw = L("equal"),
                  wanted = L("equal"), where = "sp.lua" }
  for r = 0, P - 1 do
    local g = (row_of(res, r) or {}).grads
    if not g or g.bad > 0 then
      local w = (g and (g.norm or g.worst)) or {}
      local times = w.ratio and string.format("%.2fx", w.ratio) or "?"
      if g and g.norm and g.other == 0 then          -- only the norms are wrong
        grads = { ok = false,
                  msg = L("rank %d: the norm weight gradient %s is %s the whole sequence's: a norm saw only this rank's "
                          .. "tokens", r, tostring(w.name), times),
                  saw = times, wanted = L("the gradient over every token"), where = "sp.lua: sync_grads" }
      else
        grads = { ok = false,
                  msg = L("rank %d: %s of %s parameter gradients differ from their slice of the unsharded layers'; the "
                          .. "worst, %s, is %s the right one (largest error %s)", r, tostring(g and g.bad),
                          tostring(g and g.params), tostring(w.name), times, e1(w.err)),
                  saw = e1(w.err), wanted = L("within the tolerance"), where = L("sp.lua: F, G and sync_grads") }
      end
      break
    end
  end
  v[#v + 1] = grads
  local want = 2 * SP_LAYERS
  local counts = { ok = true,
                   msg = L("every rank: %d all-gathers and %d reduce-scatters in forward and in backward, no all-reduce "
                           .. "(the TP communicator's flight recorder)", want, want),
                   saw = L("%d + %d", want, want), wanted = L("%d + %d", want, want), where = where_fg }
  for r = 0, P - 1 do
    local c = (row_of(res, r) or {}).calls or {}
    for _, dir in ipairs{ "fwd", "bwd" } do
      local w = c[dir]
      local ar, ag, rs = count(w, "all_reduce"), count(w, "all_gather"), count(w, "reduce_scatter")
      if ar > 0 or ag ~= want or rs ~= want or (w and w.n or 0) ~= ag + rs then
        local name = dir == "fwd" and L("forward") or L("backward")
        counts = { ok = false,
                   msg = L("rank %d's TP communicator recorded in %s: %d all-reduces, %d all-gathers, %d reduce-scatters "
                           .. "(%d calls) for %d layers; sequence parallelism replaces each all-reduce of a block by a "
                           .. "reduce-scatter and an all-gather", r, name, ar, ag, rs, w and w.n or 0, SP_LAYERS),
                   saw = L("%d all-reduce, %d all-gather, %d reduce-scatter", ar, ag, rs),
                   wanted = L("no all-reduce; as many all-gathers as reduce-scatters, one pair per block"),
                   where = where_fg }
        break
      end
    end
    if not counts.ok then break end
  end
  v[#v + 1] = counts
  -- the activations kept outside the blocks, TP against SP
  local row = row_of(res, 0) or {}
  local mem = row.mem or {}
  local tpo, spo = mem.tp and mem.tp.outside, mem.sp and mem.sp.outside
  local ratio = tpo and spo and spo > 0 and tpo / spo
  if ratio and math.abs(ratio - P) <= 0.1 * P then
    v[#v + 1] = { ok = true, msg = L("outside the TP blocks a layer keeps %s with TP and %s with SP (allocator): %.2fx less",
                                     kib(tpo), kib(spo), ratio),
                  saw = string.format("%.2fx", ratio), wanted = L("the TP group's split of the sequence"),
                  where = L("results pane (3)") }
  else
    v[#v + 1] = { ok = false,
                  msg = L("outside the TP blocks a layer keeps %s with TP and %s with SP (allocator): %sx, where the "
                          .. "sequence is split %d ways", kib(tpo), kib(spo), ratio and string.format("%.2f", ratio) or "-", P),
                  saw = ratio and string.format("%.2fx", ratio) or "-", wanted = L("the TP group's split of the sequence"),
                  where = L("sp.lua: F and G") }
  end
  return v
end

steps[#steps + 1] = {
  id = "sp", title = "Exercise: sequence parallelism",
  text = "steps/05-sp.md",
  exercise = "sp.lua",
  questions = {
    { id = "tp8", ask = "With a TP group of 8 instead of 4, by what factor would sequence parallelism shrink the "
                        .. "activations kept outside the TP blocks?" },
  },
  hints = { "Outside a block a rank has a quarter of the tokens; the column-parallel layers need all of them, and the "
            .. "row-parallel layer's partial sums must be added up for each token.",
            "F gathers the tokens forward; its backward must both add up the ranks' shares of dL/dx (as lab 6's f did) "
            .. "and hand each rank its own tokens. G is F mirrored.",
            "F: all_gather forward, reduce_scatter (sum) backward; G: the reverse. The norms are not sharded by TP but "
            .. "see only this rank's tokens: their gradients are partial sums over the group." },
  run = function(lab)
    lab.progress(0, L("your sp.lua: 2 TP layers on 4 ranks, sequence split 4 ways, against TP and the unsharded layers"))
    local res = spmd(lab, {}, 20)
    local t = {}
    for r = 0, P - 1 do
      local row = row_of(res, r) or {}
      local c = row.calls or {}
      local function calls(w)
        return string.format("%d / %d / %d", count(w, "all_reduce"), count(w, "all_gather"), count(w, "reduce_scatter"))
      end
      t[#t + 1] = { tostring(r), e1(row.fwd and row.fwd.err), e1(row.dx and row.dx.err),
                    row.grads and tostring(row.grads.bad) or "-", calls(c.fwd), calls(c.bwd),
                    row.mem and kib(row.mem.tp.outside) or "-", row.mem and kib(row.mem.sp.outside) or "-",
                    row.mem and kib(row.mem.tp.kept) or "-", row.mem and kib(row.mem.sp.kept) or "-" }
    end
    lab.table{ title = L("each rank against the unsharded layers; its TP collectives (all-reduce / all-gather / "
                         .. "reduce-scatter); what a forward keeps (allocator)"),
               columns = { L("rank"), L("output"), L("input grad"), L("grads differing"), L("fwd calls"), L("bwd calls"),
                           L("outside, TP"), L("outside, SP"), L("all, TP"), L("all, SP") }, rows = t }
    return { res = res }
  end,
  check = function(lab, out)
    if not out.res.ok then return broken(out.res, "sp.lua") end
    local v = sp_verdicts(out.res)
    local a = lab.answer("tp8")
    local n = a and tonumber((a:gsub("[%sx]", "")))
    v[#v + 1] = checks.equals{ value = a and (n and tostring(math.tointeger(n) or n) or a), expected = "8", answer = true,
                               what = L("the factor with TP = 8"),
                               where = L("step text: what a rank holds outside the blocks") }
    if not v[#v].ok and not v[#v].unanswered then v[#v].wanted = L("what the split of the sequence gives") end
    return v
  end,
}

return {
  title = "Pipeline and sequence parallelism",
  summary = "GPipe and 1F1B by hand with send/recv, the bubble measured, a stage deadlock, Megatron's sequence parallelism",
  backends = "sim (every preset: 4 ranks share the GPUs there are) and cuda (4 ranks; fewer GPUs: emulated nodes)",
  ranks = P,
  steps = steps,
}
