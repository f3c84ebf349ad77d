-- labs/08-deadlock/lab.lua - the note's practice 8: ranks call all-reduce
-- with different shapes, on purpose. What a hang looks like, what the
-- watchdog (--timeout) and the flight recorder make of it, blocking vs
-- asynchronous error handling, two bugs of real training loops found from
-- the flight records and fixed, and the fingerprint check that catches them
-- before anything hangs.

-- How long a collective may wait before the watchdog aborts it: short on the
-- sim; on GPUs NCCL's set-up on emulated nodes takes seconds of its own.
local function hang_timeout(lab) return lab.backend.simulated and 2 or 10 end

local function f1(x) return type(x) == "number" and string.format("%.1f", x) or tostring(x) end

local function rows_of(res, r)
  local rk = res and res.ranks and res.ranks[r]
  return rk and rk.results or {}
end

-- The world communicator's flight entries of rank r ({} when it sent none).
local function flight_of(res, r)
  local rk = res and res.ranks and res.ranks[r]
  for _, comm in ipairs((rk and rk.flight) or {}) do
    if comm.comm == "world" then return comm.entries or {} end
  end
  return {}
end

local function nranks(res)
  local n = 0
  while res and res.ranks and res.ranks[n] do n = n + 1 end
  return n
end

-- The engine's texts of a run: its reason and every rank's error.
local function run_text(res)
  local parts = { tostring(res and res.reason) }
  for r = 0, nranks(res) - 1 do
    local e = res.ranks[r].error
    parts[#parts + 1] = tostring(type(e) == "table" and e.message or e)
  end
  return table.concat(parts, "\n")
end

-- The timeout the watchdog ended a run's hang at, from its own sentence
-- ("all_reduce #2 on comm world did not complete within 2 s: ..."), or nil
-- when the watchdog ended nothing. The engine's record of its decision; how
-- long the run or a flight entry lasted is host time, which a busy machine
-- stretches (lab 8 failed under load on "9.05 s, later than 9 s").
local function watchdog_timeout(res)
  local s = run_text(res):match("did not complete within ([%d%.]+) s")
  return s and tonumber(s)
end

-- "all_reduce 1 f32 @ train_log.lua:26 (failed)"
local function entry_text(e)
  if not e then return "-" end
  return string.format("%s %s %s%s%s", e.op, tostring(e.count), e.dtype or "",
                       e.where and e.where ~= "" and (" @ " .. e.where:gsub("^.*/", "")) or "",
                       e.state ~= "completed" and (" (" .. tostring(e.state) .. ")") or "")
end

-- The first collective where the ranks' flight records part: the lowest
-- sequence number at which the ranks do not all have the same (op, count,
-- dtype, call site). The odd ranks are those outside the largest group.
-- Returns {seq =, odd = {ranks}, first_odd =} or nil.
local function first_divergence(res)
  local n = nranks(res)
  local by = {}
  local lo, hi
  for r = 0, n - 1 do
    by[r] = {}
    for _, e in ipairs(flight_of(res, r)) do
      by[r][e.seq] = e
      lo = (lo == nil or e.seq < lo) and e.seq or lo
      hi = (hi == nil or e.seq > hi) and e.seq or hi
    end
  end
  if not lo then return nil end
  for s = lo, hi do
    local groups, order = {}, {}
    for r = 0, n - 1 do
      local e = by[r][s]
      local key = e and table.concat({ e.op, tostring(e.count), tostring(e.dtype), tostring(e.where) }, "|") or "none"
      if not groups[key] then groups[key] = {}; order[#order + 1] = key end
      table.insert(groups[key], r)
    end
    if #order > 1 then
      local big = order[1]
      for _, k in ipairs(order) do if #groups[k] > #groups[big] then big = k end end
      local odd = {}
      for r = 0, n - 1 do
        local e = by[r][s]
        local key = e and table.concat({ e.op, tostring(e.count), tostring(e.dtype), tostring(e.where) }, "|") or "none"
        if key ~= big then odd[#odd + 1] = r end
      end
      return { seq = s, odd = odd, first_odd = odd[1] }
    end
  end
  return nil
end

-- The flight records as a table: one row per sequence number, one column per rank.
local function flight_table(lab, res, title)
  local n = nranks(res)
  local cols, seqs, by = { "#" }, {}, {}
  for r = 0, n - 1 do
    cols[#cols + 1] = "rank " .. r
    by[r] = {}
    for _, e in ipairs(flight_of(res, r)) do
      by[r][e.seq] = e
      seqs[e.seq] = true
    end
  end
  local list = {}
  for s in pairs(seqs) do list[#list + 1] = s end
  table.sort(list)
  local rows = {}
  for _, s in ipairs(list) do
    local row = { "#" .. s }
    for r = 0, n - 1 do row[#row + 1] = entry_text(by[r][s]) end
    rows[#rows + 1] = row
  end
  lab.table{ title = title, columns = cols, rows = rows }
  if res.analysis and res.analysis ~= "" then lab.log(L("flight recorder analysis: %s", res.analysis)) end
end

-- A check that the run of a mismatch ended (did not hang past its
-- timeout) and, when the watchdog ended it, that the analyser named it.
local function ended(res, limit, what)
  if res.ok then
    return { ok = false, msg = L("%s completed: the mismatched collective did not hang here", what),
             saw = L("the run finished"), wanted = L("a hang ended by the watchdog"), where = L("log pane (5)") }
  end
  return checks.hang_caught{ report = res, within = limit, where = L("log pane (5): the watchdog's message and the analysis") }
end

-- A question's verdict that does not give the answer away when it fails
-- (checks.equals says what it wanted; here the learner must find it). Not
-- answered yet, it waits (the step is AWAITING, not failed).
local function answered(a)
  a.answer = true
  local v = checks.equals(a)
  if not v.ok and not v.unanswered then
    v.msg = L("%s: \"%s\" is not right", a.what, tostring(a.value))
    v.wanted = a.hidden
  end
  return v
end

-- Answers to "which rank, which #" against the records of the run shown.
local function answer_checks(lab, div, rank_id, seq_id, where)
  if not div then
    return { { ok = false, msg = L("the flight records show no divergence to ask about (the run did not hang?)"),
               saw = L("no divergence"), wanted = L("a hang with flight records"), where = where } }
  end
  local odd = {}
  for _, r in ipairs(div.odd) do odd[#odd + 1] = tostring(r) end
  return {
    answered{ value = lab.answer(rank_id), expected = { any = odd }, what = L("the rank that called differently"),
              hidden = L("the rank whose column differs first"), where = where },
    answered{ value = lab.answer(seq_id), expected = div.seq, what = L("the sequence number (#) where the records part"),
              hidden = L("the # of the first row where a column differs"), where = where },
  }
end

-- Runs a training-loop exercise: the learner's script on the lab's ranks and
-- on 7; the flight records of a hang (the learner's own, or the original
-- script's when the learner's no longer hangs) for the questions.
local function run_exercise(lab, original)
  local t = hang_timeout(lab)
  local out = { runs = {} }
  for i, ranks in ipairs({ lab.backend.ranks, 7 }) do
    lab.progress((i - 1) / 3, L("%s on %d ranks", original, ranks))
    out.runs[i] = lab.spmd(lab.exercise, { ranks = ranks, timeout = t })
    out.runs[i].nranks = nranks(out.runs[i])
    if not out.runs[i].ok then break end   -- a script that hangs on 4 ranks need not hang again on 7
  end
  out.evidence = out.runs[1]
  if out.runs[1].ok then
    lab.progress(2 / 3, L("the original %s (for the flight records)", original))
    out.evidence = lab.spmd("exercises/" .. original, { timeout = t })
    out.evidence_is = L("the original %s", original)
  else
    out.evidence_is = L("your %s", original)
  end
  out.div = first_divergence(out.evidence)
  flight_table(lab, out.evidence, L("flight records of %s (its last collectives per rank)", out.evidence_is))
  return out
end

-- Both runs of the learner's script finished, and every rank reported.
local function completed(out, name)
  local v = {}
  for _, res in ipairs(out.runs) do
    local n = res.nranks
    if not res.ok then
      v[#v + 1] = { ok = false, msg = L("%s on %d ranks did not finish: %s%s", name, n, tostring(res.reason),
                                       res.analysis ~= "" and L("; flight recorder: %s", res.analysis) or ""),
                    saw = L("a hang or an error"), wanted = L("every rank finishes"),
                    where = L("results pane (3): the flight records") }
    else
      v[#v + 1] = { ok = true, msg = L("%s finished on %d ranks in %.1f s", name, n, res.wall_s),
                    saw = L("finished"), wanted = L("finished"), where = L("log pane (5)") }
    end
  end
  return v
end

-- An exercise step on a training loop: `judge(lab, res, v)` adds the
-- verdicts on one finished run of the learner's script; the step adds
-- "both runs finished" and the two questions against the flight records.
local function exercise_step(d)
  return {
    id = d.id, title = d.title, text = d.text, exercise = d.file, hints = d.hints,
    questions = { { id = d.rank_q, ask = d.rank_ask }, { id = d.seq_q, ask = d.seq_ask } },
    run = function(lab) return run_exercise(lab, d.file) end,
    check = function(lab, out)
      local v = completed(out, d.file)
      for _, res in ipairs(out.runs) do
        if res.ok then d.judge(lab, res, v) end
      end
      for _, x in ipairs(answer_checks(lab, out.div, d.rank_q, d.seq_q,
                                       L("results pane (3): flight records of %s", out.evidence_is))) do v[#v + 1] = x end
      return checks.all(v)
    end,
  }
end

return {
  title    = "The collective-mismatch deadlock",
  summary  = "Ranks call all_reduce with different shapes; the watchdog, flight records, two training-loop bugs, the fingerprint check",
  backends = "cuda (N GPUs, or the ranks as emulated nodes on one GPU) and sim (any preset)",
  ranks    = 4,
  steps = {
    {
      id = "mismatch", title = "all_reduce with different shapes: the hang, --timeout and the flight records",
      text = "steps/01-mismatch.md",
      hints = {
        "The table has one column per rank and one row per collective (#). Look for the row where one column differs.",
        "The count is the number of elements each rank passed; # is the sequence number every rank gives the same collective.",
      },
      questions = {
        { id = "odd_rank", ask = "Which rank called all_reduce with a different shape?" },
        { id = "hung_seq", ask = "Which sequence number (#) is the collective that never completed?" },
      },
      run = function(lab)
        local t = hang_timeout(lab)
        lab.progress(0, "--timeout " .. t)
        local short = lab.spmd("scripts/mismatch.lua", { timeout = t, args = { "blocking" } })
        lab.progress(0.5, "--timeout " .. 2 * t)
        local long = lab.spmd("scripts/mismatch.lua", { timeout = 2 * t, args = { "blocking" } })
        local function waited(res)
          local w = checks.hang_waited(res)
          return w and string.format("%.1f s", w) or "-"
        end
        lab.table{ title = L("the same mismatch, two watchdog timeouts"),
                   columns = { "--timeout", L("the hung all_reduce waited"), L("run ended after"), L("reason") },
                   rows = { { t .. " s", waited(short), string.format("%.1f s", short.wall_s), (tostring(short.reason):gsub("^rank %d+: ", "")) },
                            { 2 * t .. " s", waited(long), string.format("%.1f s", long.wall_s), (tostring(long.reason):gsub("^rank %d+: ", "")) } } }
        flight_table(lab, long, L("flight records (comm world), one column per rank"))
        return { short = short, long = long, t = t }
      end,
      check = function(lab, out)
        local v = {
          ended(out.short, out.t + 2, "mismatch.lua"),
          ended(out.long, 2 * out.t + 2, "mismatch.lua"),
        }
        -- how long the hung collective waited, by the ranks' own flight
        -- records (the run's wall time also counts starting the ranks)
        -- by the watchdog's own sentences (the timeout it ended each hang at)
        -- and the flight records: each hang waited at least its own timeout.
        -- A busy machine can only make a wait longer, never shorter, so it
        -- cannot fail this; comparing the two waits, it could.
        local ws, wl = checks.hang_waited(out.short), checks.hang_waited(out.long)
        local ts, tl = watchdog_timeout(out.short), watchdog_timeout(out.long)
        if not out.short.ok and not out.long.ok and ws and wl then
          local ok = ts == out.t and tl == 2 * out.t and ws >= 0.99 * ts and wl >= 0.99 * tl
          v[#v + 1] = { ok = ok, msg = ok and L("a longer --timeout waits longer: %.1f s vs %.1f s - the watchdog, "
                                                 .. "not NCCL, decides when a hang ends", wl, ws)
                                          or L("the run with the longer timeout did not wait longer: was it ended by the watchdog?"),
                        saw = L("%.1f s and %.1f s", ws, wl),
                        wanted = L("the longer timeout's hang waits longer"), where = L("results pane (3): the first table") }
        end
        for _, x in ipairs(answer_checks(lab, first_divergence(out.long), "odd_rank", "hung_seq",
                                         L("results pane (3): the flight records"))) do v[#v + 1] = x end
        return checks.all(v)
      end,
    },
    {
      id = "async", title = "Blocking wait vs asynchronous error handling",
      text = "steps/02-async.md",
      hints = { "Compare the two tables' 'the call returned after' and 'polls' columns.",
                "On the SIMULATED machine a collective runs on the host: the call itself waits (the step says so)." },
      run = function(lab)
        local t = hang_timeout(lab)
        local out = { t = t }
        lab.progress(0, "blocking")
        out.blocking = lab.spmd("scripts/mismatch.lua", { timeout = t, args = { "blocking" } })
        lab.progress(0.5, "async")
        out.async = lab.spmd("scripts/mismatch.lua", { timeout = t, args = { "async" } })
        local rows = {}
        for _, mode in ipairs({ "blocking", "async" }) do
          for r = 0, nranks(out[mode]) - 1 do
            local x = rows_of(out[mode], r)[1]
            if x then
              rows[#rows + 1] = { mode, tostring(r), x.call_returned_s and string.format("%.3f s", x.call_returned_s)
                                                       or L("never: the call itself raised"),
                                  tostring(x.polls or "-"), string.format("%.1f s", x.seconds or 0),
                                  x.completed and L("completed, y[0] = %s", tostring(x.value))
                                    or (tostring(x.error):gsub("^.-comm:[%w_]+: ", "")) }
            end
          end
        end
        lab.table{ title = L("what each rank's script saw"), columns = { L("mode"), "rank", L("the call returned after"), L("polls"),
                   L("error after"), L("what the script got") }, rows = rows }
        return out
      end,
      check = function(lab, out)
        local v = {}
        for _, mode in ipairs({ "blocking", "async" }) do
          local res = out[mode]
          -- judged from the engine's own words, not the scripts' clocks (a
          -- busy machine stretches those): the error is the watchdog's
          -- ("did not complete within") or the abort that followed it, and
          -- the script went on to report its row
          local saw, n, returned, polls = 0, nranks(res), 0, 0
          for r = 0, n - 1 do
            local x = rows_of(res, r)[1]
            local e = x and tostring(x.error) or ""
            if x and not x.completed and (e:find("did not complete within", 1, true) or e:find("aborted", 1, true)) then
              saw = saw + 1
            end
            -- the host polled while the collective hung: the call had returned
            if x and x.call_returned_s and (x.polls or 0) > 0 then returned = returned + 1 end
            if x and (x.polls or 0) > 0 then polls = polls + 1 end
          end
          v[#v + 1] = { ok = n > 0 and saw == n,
                        msg = L("%s: %d of %d ranks' scripts got the watchdog's error and went on", mode, saw, n),
                        saw = L("%d of %d ranks", saw, n), wanted = L("every rank"), where = L("results pane (3)") }
          if mode == "async" and not lab.backend.simulated then
            v[#v + 1] = { ok = returned == n and polls == n,
                          msg = L("async: the call returned at once on %d of %d ranks and the host polled while "
                                  .. "the collective hung on %d", returned, n, polls),
                          saw = L("%d returned, %d polled", returned, polls), wanted = L("every rank"),
                          where = L("results pane (3): columns 'the call returned after' and 'polls'") }
          end
        end
        return checks.all(v)
      end,
    },
    exercise_step{
      id = "logloss", title = "Exercise 1: rank 0 logs its loss",
      text = "steps/03-logloss.md",
      file = "train_log.lua",
      hints = {
        "In the flight records, find the first # where rank 0's call site (@ line) differs from the others', even if the op and count agree.",
        "A collective is a meeting: if rank 0 all-reduces the loss, every rank must. Only the print is rank 0's.",
      },
      rank_q = "log_rank", rank_ask = "Which rank made a collective the others did not?",
      seq_q = "log_seq", seq_ask = "What is that collective's sequence number (#) in its flight record?",
      judge = function(lab, res, v)
        local sums, r0 = {}, rows_of(res, 0)[1]
        for r = 0, res.nranks - 1 do sums[r] = (rows_of(res, r)[1] or {}).checksum end
        v[#v + 1] = checks.identical{ values = sums, ranks = res.nranks, what = L("gradient checksum after the last step, %d ranks", res.nranks),
                                      where = L("log pane (5)") }
        -- the log must be the mean over every rank, at every logging step
        local want, got, labels = {}, {}, {}
        for _, l in ipairs((r0 and r0.logged) or {}) do
          local s = 0
          for r = 0, res.nranks - 1 do s = s + (tonumber(((rows_of(res, r)[1] or {}).losses or {})[l.step]) or 0) end
          want[#want + 1], got[#got + 1], labels[#labels + 1] = s / res.nranks, l.loss, "step " .. l.step
        end
        if #got == 0 then
          v[#v + 1] = { ok = false, msg = L("rank 0 logged no loss: the log must stay (every log_every steps)"),
                        saw = L("0 logged steps"), wanted = L("the mean loss every log_every steps"), where = L("log pane (5)") }
        else
          v[#v + 1] = checks.close{ value = got, expected = want, rtol = 1e-5, labels = labels,
                                    what = L("rank 0's logged loss vs the mean over %d ranks", res.nranks), where = L("log pane (5)") }
        end
      end,
    },
    exercise_step{
      id = "empty", title = "Exercise 2: a rank with an empty batch",
      text = "steps/04-empty.md",
      file = "empty_batch.lua",
      hints = {
        "The flight records: which rank never made the gradient all_reduce of the last step, and what did it call instead?",
        "Take the all_reduce out of the `if n > 0`: a rank without samples contributes a zero gradient.",
      },
      rank_q = "empty_rank", rank_ask = "Which rank skipped the gradient all-reduce?",
      seq_q = "empty_seq", seq_ask = "At which sequence number (#) do the flight records part?",
      judge = function(lab, res, v)
        -- every rank averaged every step, and the average is the sum over
        -- ALL ranks' samples divided by their number
        local n, steps, bad = res.nranks, nil, nil
        for r = 0, n - 1 do
          local rows = (rows_of(res, r)[1] or {}).rows or {}
          steps = steps or #rows
          if #rows ~= steps or #rows == 0 then bad = bad or L("rank %d made %d gradient all-reduces, rank 0 %d", r, #rows, steps) end
          for _, row in ipairs(rows) do
            if type(row.avg) ~= "number" or type(row.total) ~= "number" or row.total <= 0 then
              bad = bad or L("rank %d: a result row without avg and total (keep the script's mgpu.result)", r)
            end
          end
        end
        if not bad then
          for i = 1, steps do
            local sum, total = 0, nil
            for r = 0, n - 1 do
              local row = rows_of(res, r)[1].rows[i]
              sum = sum + (row.mine or 0)
              total = row.total
            end
            for r = 0, n - 1 do
              local row = rows_of(res, r)[1].rows[i]
              if math.abs(row.avg - sum / total) > 1e-6 * math.abs(sum / total) then
                bad = bad or L("step %d, rank %d: average gradient %s, the samples of all ranks give %s",
                                           row.step, r, f1(row.avg), f1(sum / total))
              end
            end
          end
        end
        v[#v + 1] = { ok = bad == nil, msg = bad or L("%d ranks: every rank averaged every step's gradient "
                                                      .. "over the samples of all ranks", n),
                      saw = bad or L("right on every rank"), wanted = L("every rank, every step: sum of gradients / samples of all ranks"),
                      where = L("log pane (5): [rank K] result rows") }
      end,
    },
    {
      id = "fingerprint", title = "The fingerprint check: caught before anything hangs, and its cost",
      text = "steps/05-fingerprint.md",
      hints = { "The log pane has the fingerprint check's sentence for each script: it names the #.",
                "Which fields does a fingerprint compare? Is the call site one of them?" },
      questions = {
        { id = "fp_seq", ask = "At which # did the fingerprint check stop the original train_log.lua?" },
        { id = "fp_extra", ask = "How many extra collectives does the check make per collective?" },
      },
      run = function(lab)
        local out = { timeout = lab.backend.simulated and 30 or 60 }
        for i, name in ipairs({ "train_log.lua", "empty_batch.lua" }) do
          lab.progress((i - 1) / 4, L("%s with MGPU_FINGERPRINT=1", name))
          out[name] = lab.spmd("exercises/" .. name, { timeout = out.timeout, fingerprint = true })
          lab.log(L("%s with the fingerprint check: %s", name, tostring(out[name].reason)))
        end
        local n = lab.backend.simulated and "200" or "1000"
        lab.progress(0.5, L("cost: fingerprint off"))
        out.off = lab.spmd("scripts/fp_cost.lua", { args = { n } })
        lab.progress(0.75, L("cost: fingerprint on"))
        out.on = lab.spmd("scripts/fp_cost.lua", { args = { n }, fingerprint = true })
        local off, on = rows_of(out.off, 0)[1], rows_of(out.on, 0)[1]
        local rows = {}
        for _, name in ipairs({ "train_log.lua", "empty_batch.lua" }) do
          local res = out[name]
          local why = tostring(res.reason)
          rows[#rows + 1] = { name, string.format("%.1f s", res.wall_s), why:match("collective fingerprint mismatch.*") or why }
        end
        lab.table{ title = L("the original scripts with MGPU_FINGERPRINT=1 (--timeout %d s)", out.timeout),
                   columns = { "script", L("ended after"), L("why") }, rows = rows }
        if off and on then
          lab.table{ title = L("all_reduce of 1 f32, %s times, rank 0 (host time per collective)", n),
                     columns = { "fingerprint", L("us per collective") },
                     rows = { { "off", f1(off.us_per_collective) }, { "on", f1(on.us_per_collective) },
                              { L("cost of the check"), f1(on.us_per_collective - off.us_per_collective) } } }
          lab.record("fp_off_us", off.us_per_collective)
          lab.record("fp_on_us", on.us_per_collective)
        end
        return out
      end,
      check = function(lab, out)
        local v = {}
        for _, name in ipairs({ "train_log.lua", "empty_batch.lua" }) do
          -- "before any collective hung", from the engine's records, not
          -- the run's wall time (a busy machine stretches that): the
          -- check's sentence names the #, the watchdog ended nothing, and
          -- every collective before that # completed on every rank
          local res = out[name]
          local seq = tonumber(tostring(res.reason):match("fingerprint mismatch at #(%d+)"))
          local caught = not res.ok and seq ~= nil
          local hung = watchdog_timeout(res) ~= nil
          for r = 0, nranks(res) - 1 do
            for _, e in ipairs(flight_of(res, r)) do
              if seq and e.seq < seq and e.state ~= "completed" then hung = true end
            end
          end
          v[#v + 1] = { ok = caught and not hung,
                        msg = not caught and L("%s: not refused by the fingerprint check (%s)", name, tostring(res.reason))
                              or hung and L("%s: refused by the fingerprint check at #%d, but a collective hung first "
                                            .. "(the watchdog ended it or an earlier # did not complete)", name, seq)
                              or L("%s: refused by the fingerprint check at #%d, before any collective hung: every "
                                   .. "earlier # completed and the watchdog (%d s) ended nothing", name, seq, out.timeout),
                        saw = tostring(res.reason):sub(1, 100),
                        wanted = L("'collective fingerprint mismatch', no collective ended by the watchdog"),
                        where = L("log pane (5)") }
        end
        local off, on = rows_of(out.off, 0)[1], rows_of(out.on, 0)[1]
        v[#v + 1] = { ok = out.off.ok and out.on.ok and off ~= nil and on ~= nil,
                      msg = (off and on) and L("measured: %s us per collective without the check, %s with it",
                                               f1(off.us_per_collective), f1(on.us_per_collective))
                                         or L("fp_cost.lua did not finish: %s", tostring(out.on.reason or out.off.reason)),
                      saw = (off and on) and L("both measured") or L("no measurement"), wanted = L("both measured"),
                      where = L("results pane (3): the second table") }
        local div = tostring(out["train_log.lua"].reason):match("mismatch at #(%d+)")
        v[#v + 1] = answered{ value = lab.answer("fp_seq"), expected = tonumber(div), what = L("the # the check stopped train_log.lua at"),
                              hidden = L("the # in the check's sentence"), where = L("results pane (3): the first table") }
        v[#v + 1] = answered{ value = lab.answer("fp_extra"), expected = 1, what = L("extra collectives per collective"),
                              hidden = L("what the check launches before each collective"), where = L("step text: how the check works") }
        return checks.all(v)
      end,
    },
  },
}
