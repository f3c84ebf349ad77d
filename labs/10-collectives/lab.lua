-- labs/10-collectives/lab.lua - beyond the note: what NCCL does for us. The
-- learner builds ring reduce-scatter and all-gather from comm:send/comm:recv,
-- composes them into all-reduce, checks it against comm:all_reduce on 2-8
-- ranks (odd counts too), times it against NCCL on the modelled clock,
-- derives busbw for n ranks, meets the send-before-receive deadlock, and
-- writes an all-to-all with uneven splits (MoE's token exchange).
-- The bench the learner's functions run in is labs/lib/coll/harness.lua.

local RANK_COUNTS = { 2, 3, 5, 8 }   -- odd counts, and counts that do not divide the buffer
local COUNT = 1027                   -- elements: divides by none of the rank counts
local LARGE_COUNT = 3 * 1536 * 1024 + 1  -- 18 MiB on 3 ranks: chunks of 6 MiB
local BIG = 64 * 1024 * 1024         -- 256 MiB of f32 (phantom) for the timing runs
local TIMING_MACHINE = "dgx-h100"    -- the timing bar is judged on this (what-if) machine
-- The watchdog of the correctness runs: a wrong ring often hangs, and every
-- hang waits this long; a right one never waits near it on the sim (cuda:
-- emulated ranks set up NCCL for seconds of their own).
local function hang_timeout(lab) return lab.backend.simulated and 5 or 15 end

local function nranks(res)
  local n = 0
  while res and res.ranks and res.ranks[n] do n = n + 1 end
  return n
end

local function rows_of(res)
  local out = {}
  for r = 0, nranks(res) - 1 do
    for _, row in ipairs(res.ranks[r].results or {}) do out[#out + 1] = row end
  end
  return out
end

local function ranks_in(mask, n)
  local list, count = {}, 0
  for r = 0, n - 1 do
    if mask & (1 << r) ~= 0 then list[#list + 1] = tostring(r); count = count + 1 end
  end
  return count, table.concat(list, ",")
end

-- What a chunk holds, in words, from its first value (exact data: a bit per rank).
local function holds(c, n, mode)
  if mode == "ag" and c.v0 == -1 then return L("still -1: nothing was received into it") end
  if c.mask then
    local count, list = ranks_in(c.mask, n)
    if c.mask >> n ~= 0 then return L("a value that is no sum of the ranks' data (%s)", tostring(c.v0)) end
    return L("the sum of %d of %d ranks (ranks %s)", count, n, list)
  end
  return L("a value that is no sum of the ranks' data (%s)", tostring(c.v0))
end

-- (a function: the language is the run's, not the load's)
local function where_ring() return L("log pane (5) and your ring.lua") end

-- A run that did not finish (a hang, a size mismatch, an error in the learner's code).
local function broken(res, what, where)
  local why = tostring(res.reason)
  for r = 0, nranks(res) - 1 do
    for _, row in ipairs(res.ranks[r].results or {}) do
      if row.error then why = L("rank %d: %s", r, row.error); break end
    end
  end
  return { ok = false, msg = L("%s did not finish: %s", what, why),
           saw = why, wanted = L("every rank finishes"), where = where or where_ring() }
end

-- Judges one run of the harness: mode rs (chunk r of rank r only), ag or ar
-- (every chunk of every rank). The first fault found is the verdict.
local function judge(res, mode, n, count)
  local fname = ({ rs = "reduce_scatter", ag = "all_gather", ar = "all_reduce", rd = "all_reduce" })[mode]
  local what = count and count > COUNT and L("your %s on %d ranks, %d f32 (large messages)", mode == "rd" and "doubling" or fname, n, count)
               or L("your %s on %d ranks", mode == "rd" and "doubling" or fname, n)
  if not res.ok then return broken(res, what) end
  local rows = rows_of(res)
  for _, row in ipairs(rows) do
    if row.error then return broken({ ok = false, reason = row.error, ranks = {} }, what) end
  end
  for _, row in ipairs(rows) do
    for op in pairs(row.ops or {}) do
      if op ~= "send" and op ~= "recv" then
        return { ok = false, msg = L("%s called %s: build it from comm:send and comm:recv only", what, op),
                 saw = L("%s in the flight record of your communicator", op), wanted = L("send and recv only"), where = where_ring() }
      end
    end
    if not row.ops or not row.ops.send then
      return { ok = false, msg = L("%s sent nothing on rank %d: the ring has not been written yet", what, row.rank),
               saw = L("no send in the flight record"), wanted = L("a send in every ring step"), where = where_ring(),
               unwritten = mode == "rd" and "doubling" or fname }
    end
  end
  for _, case in ipairs({ "exact", "random" }) do
    for _, row in ipairs(rows) do
      if row.case == case then
        for _, c in ipairs(row.chunks or {}) do
          local judged = mode ~= "rs" or c.k == row.rank
          if judged and c.bad > 0 then
            if case == "exact" then
              return { ok = false,
                       msg = L("%s: on rank %d, chunks[%d] (elements %d-%d) is not %s; it holds %s",
                                           what, row.rank, c.k, c.first, c.first + c.len - 1,
                                           mode == "ag" and L("rank %d's reduced chunk", c.k)
                                                         or L("the sum of all %d ranks", n),
                                           holds(c, n, mode)),
                       saw = L("%d of %d elements differ from comm:all_reduce's (exact data: bit for bit)",
                                           c.bad, c.len),
                       wanted = L("every element equal to comm:all_reduce's, bit for bit"), where = where_ring() }
            else
              return { ok = false,
                       msg = L("%s, random data: on rank %d, chunks[%d] differs from comm:all_reduce by more "
                                           .. "than another summation order explains", what, row.rank, c.k),
                       saw = L("%d elements off, the largest by %.3g (first at element %d of the chunk)",
                                           c.bad, c.maxerr, c.at or -1),
                       wanted = L("within rtol 1e-5, atol %.0e", 1e-5 * n), where = where_ring() }
            end
          end
        end
      end
    end
  end
  local bits = 0
  for _, row in ipairs(rows) do
    if row.case == "random" then
      for _, c in ipairs(row.chunks or {}) do if (mode ~= "rs" or c.k == row.rank) then bits = bits + c.exact_bad end end
    end
  end
  return { ok = true, msg = L("%s: every rank's chunks right - exact data bit for bit; random data within "
                                          .. "rounding (%d elements summed in another order than NCCL's)", what, bits),
           saw = L("right on every rank"), wanted = L("right on every rank"), where = where_ring() }
end

-- The learner's ring on each rank count of RANK_COUNTS, in one mode.
-- large = true adds a run on 3 ranks with chunks of 6 MiB: past the size a
-- send completes without its receiver (the sim's mailboxes hold 4 MiB), so a
-- ring that sends before it receives, outside a group, hangs there as it
-- would on GPUs - the small runs and the phantom timing runs cannot show it.
local function run_modes(lab, modes, counts, large)
  counts = counts or RANK_COUNTS
  local specs = {}
  for _, n in ipairs(counts) do
    for _, mode in ipairs(modes) do specs[#specs + 1] = { mode = mode, n = n, count = COUNT } end
  end
  if large then
    for _, mode in ipairs(modes) do specs[#specs + 1] = { mode = mode, n = 3, count = LARGE_COUNT } end
  end
  local out = {}
  for i, sp in ipairs(specs) do
    lab.progress((i - 1) / #specs, L("%s on %d ranks, %d f32", sp.mode, sp.n, sp.count))
    out[#out + 1] = { mode = sp.mode, n = sp.n, count = sp.count,
                      res = lab.spmd(lab.exercise, { ranks = sp.n, args = { sp.mode, tostring(sp.count) },
                                                           timeout = hang_timeout(lab) }) }
  end
  return out
end

-- A ring not written yet sends nothing on any run: one line says so for all
-- of them, instead of the same line once per rank count.
local function judge_all(runs)
  local v, counts, names, seen, all_unwritten = {}, {}, {}, {}, true
  for _, run in ipairs(runs) do
    v[#v + 1] = judge(run.res, run.mode, run.n, run.count)
    local u = v[#v].unwritten
    if not u then all_unwritten = false
    else
      if not seen[run.n] then seen[run.n] = true; counts[#counts + 1] = tostring(run.n) end
      if not seen[u] then seen[u] = true; names[#names + 1] = u end
    end
  end
  if all_unwritten and #v > 1 then
    local first = v[1]
    return { ok = false, saw = first.saw, wanted = first.wanted, where = first.where,
             msg = L("your %s sent nothing on %s ranks: the ring has not been written yet",
                     table.concat(names, ", "), table.concat(counts, ", ")) }
  end
  return checks.all(v)
end

-- A question's verdict that does not give the answer away when it fails.
local function answered(a)
  a.answer = true
  local v = a.rtol and checks.close(a) or checks.equals(a)
  if not v.ok and not v.unanswered then
    v.msg = L("%s: %s is not right", a.what, tostring(a.shown or a.value))
    v.saw = tostring(a.shown or a.value)
    v.wanted = a.hidden
  end
  return v
end

-- One timing run: the learner's all_reduce and NCCL's on 256 MiB of phantom
-- f32, on the what-if machine; rank 0's row.
local function time_run(lab, n, env)
  local res = lab.spmd(lab.exercise, { ranks = n, args = { "time", tostring(BIG) }, timeout = 60,
                                       machine = TIMING_MACHINE, env = env })
  local row = (res.ranks and res.ranks[0] and res.ranks[0].results or {})[1]
  return res, row
end

local function busbw(bytes, ms, n) return bytes / (ms * 1e6) * 2 * (n - 1) / n end

-- "16M", "24 MiB", "3e7", "512K" -> bytes (K, M, G binary), or nil
local function parse_size(s)
  if type(s) ~= "string" then return nil end
  local num, unit = s:gsub("%s", ""):match("^([%d%.eE%+]+)([KkMmGg]?)[iI]?[bB]?$")
  local x = tonumber(num)
  if not x then return nil end
  local mult = ({ [""] = 1, k = 1024, m = 1024 ^ 2, g = 1024 ^ 3 })[(unit or ""):lower()]
  return x * mult
end

local function size_text(b)
  if b < 1024 then return string.format("%d B", b) end
  if b < 1024 ^ 2 then return string.format("%d KiB", b // 1024) end
  return string.format("%d MiB", b // 1024 ^ 2)
end

-- The message size where two sweeps' times cross: linear between the two
-- sizes around the first sign change (t = latency + bytes / bandwidth is a
-- line in the size). nil when they do not cross.
local function crossover(small_first, big_first)
  for i = 2, #small_first do
    local a0, b0 = small_first[i - 1], big_first[i - 1]
    local a1, b1 = small_first[i], big_first[i]
    local d0, d1 = b0.ms - a0.ms, b1.ms - a1.ms
    if d0 > 0 and d1 <= 0 then
      return a0.bytes + (a1.bytes - a0.bytes) * d0 / (d0 - d1)
    end
  end
end

local function sweep_rows(res)
  local row = (res.ranks and res.ranks[0] and res.ranks[0].results or {})[1]
  return row and row.sizes, row
end

-- The timing run's all_reduce moved data: an unwritten ring takes no time.
local function sent_something(row, n)
  local sends = row and row.ops and row.ops.send or 0
  local ok = sends > 0
  -- (the count of sends is not shown: step 4 asks for what they add up to)
  return { ok = ok, msg = ok and L("your all_reduce on %d ranks sent its chunks", n)
                              or L("your all_reduce on %d ranks sent nothing: there is no ring to time yet", n),
           saw = ok and L("sends") or L("no send"), wanted = L("the sends of your ring"), where = where_ring() }
end

-- The flight records of a run, one column per rank (lab 8's table).
local function flight_table(lab, res, title)
  local n = nranks(res)
  local cols, rows = { "#" }, {}
  local per = {}
  for r = 0, n - 1 do
    cols[#cols + 1] = L("rank %d", r)
    per[r] = {}
    for _, comm in ipairs(res.ranks[r].flight or {}) do
      for _, e in ipairs(comm.entries or {}) do per[r][#per[r] + 1] = e end
    end
  end
  local depth = 0
  for r = 0, n - 1 do depth = math.max(depth, #per[r]) end
  for i = 1, depth do
    local row = { tostring(i) }
    for r = 0, n - 1 do
      local e = per[r][i]
      row[#row + 1] = e and L("%s %s f32 @ %s (%s)", e.op, tostring(e.count),
                                            tostring(e.where or "?"):gsub("^.*/", ""), tostring(e.state)) or "-"
    end
    rows[#rows + 1] = row
  end
  lab.table{ title = title, columns = cols, rows = rows }
  if res.analysis and res.analysis ~= "" then lab.log(L("flight recorder analysis: %s", res.analysis)) end
end

return {
  title    = "Collectives from point to point",
  summary  = "What NCCL does for us: ring reduce-scatter, all-gather and all-reduce from send/recv, timed against NCCL; busbw for n ranks; the send-first deadlock; all-to-all with uneven splits",
  backends = "cuda (N GPUs, or the ranks as emulated nodes on one GPU) and sim (any preset)",
  ranks    = 4,
  steps = {
    {
      id = "reduce-scatter", title = "Exercise 1: ring reduce-scatter from send and recv",
      text = "steps/01-reduce-scatter.md",
      exercise = "ring.lua",
      hints = {
        "Draw 3 ranks and 3 chunks. In each step every rank sends one chunk to the right and adds the one from the left into one of its own chunks.",
        "After n-1 steps rank r must own the full sum of chunks[r]. Work backwards: which chunk must rank r pass on in the last step, and which in the first?",
        "The chunk rank r receives in a step is the one it sends in the next step, plus its own share.",
        "Receive into scratch:flat(0, len) with len the length of the chunk it adds to: the chunks are not all the same length.",
      },
      run = function(lab) return run_modes(lab, { "rs" }) end,
      check = function(lab, runs) return judge_all(runs) end,
    },
    {
      id = "all-reduce", title = "Exercise 2: ring all-gather, and all-reduce from the two",
      text = "steps/02-all-reduce.md",
      exercise = "ring.lua",
      hints = {
        "All-gather moves the same way as reduce-scatter, but it copies instead of adding.",
        "Rank r starts with only chunks[r]; in step s it passes on the chunk it received in step s-1.",
        "All-reduce is the reduce-scatter you wrote, then the all-gather.",
      },
      run = function(lab) return run_modes(lab, { "ag", "ar" }, nil, true) end,
      check = function(lab, runs) return judge_all(runs) end,
    },
    {
      id = "timing", title = "Your ring against NCCL's: busbw at 256 MiB",
      text = "steps/03-timing.md",
      exercise = "ring.lua",
      hints = {
        "Where does your ring spend time that NCCL's does not? Count the steps, and look at what happens between two sends.",
        "NCCL adds inside the same kernel that moves the data; your ring adds after the receive, in a kernel of its own.",
      },
      questions = {
        { id = "ring_vs_nccl", ask = "Before you look: will your ring's busbw be above or below NCCL's own ring (above/below)?" },
      },
      run = function(lab)
        lab.progress(0, L("your ring and NCCL's default (NVLS) on 8 ranks, 256 MiB"))
        local res, row = time_run(lab, 8, nil)
        lab.progress(0.5, L("NCCL's ring (NCCL_ALGO=Ring)"))
        local res_r, row_r = time_run(lab, 8, { NCCL_ALGO = "Ring" })
        local out = { res = res, row = row, res_r = res_r, row_r = row_r }
        if row and row_r and row.ring_ms and row.ag_ms then
          out.mine = busbw(row.bytes, row.ring_ms, 8)
          out.nccl = busbw(row.bytes, row.nccl_ms, 8)
          out.nccl_ring = busbw(row_r.bytes, row_r.nccl_ms, 8)
          -- all-gather: busbw = S / time x (n-1)/n
          out.ag = busbw(row.bytes, row.ag_ms, 8) / 2
          out.nccl_ag = busbw(row_r.bytes, row_r.nccl_ag_ms, 8) / 2
          local function line(name, ms, bw) return { name, string.format("%.3f", ms), string.format("%.1f", bw) } end
          -- NCCL's rows come once the prediction is in: it is a prediction
          local rows = { line(L("all-gather: your ring"), row.ag_ms, out.ag),
                         line(L("all-reduce: your ring"), row.ring_ms, out.mine) }
          if lab.answer("ring_vs_nccl") ~= nil then
            rows = { rows[1], line(L("all-gather: NCCL's ring"), row_r.nccl_ag_ms, out.nccl_ag),
                     rows[2], line(L("all-reduce: NCCL's ring (NCCL_ALGO=Ring)"), row_r.nccl_ms, out.nccl_ring),
                     line(L("all-reduce: NCCL's own choice (NVLS)"), row.nccl_ms, out.nccl) }
          end
          lab.table{ title = L("256 MiB f32 on 8 ranks, SIMULATED %s (modelled clock)", TIMING_MACHINE),
                     columns = { L("collective"), L("time (ms)"), L("busbw (GB/s)") }, rows = rows }
          lab.record("ring_busbw", out.mine)
          lab.record("ag_busbw", out.ag)
          lab.record("nccl_ring_busbw", out.nccl_ring)
          lab.record("nccl_busbw", out.nccl)
        end
        return out
      end,
      check = function(lab, out)
        if not out.mine then
          return broken(out.row and out.row.error and { reason = out.row.error, ranks = {} } or out.res,
                        L("the timing run of your all_reduce"))
        end
        local v = {
          sent_something(out.row, 8),
          checks.bandwidth{ value = out.ag, peak = out.nccl_ag, fraction = 0.8,
                            what = L("your all-gather's busbw against NCCL's, 256 MiB, 8 ranks"),
                            where = L("results pane (3)") },
          checks.bandwidth{ value = out.mine, peak = out.nccl_ring, fraction = 0.75,
                            what = L("your ring's busbw against NCCL's ring (NCCL_ALGO=Ring), 256 MiB, 8 ranks"),
                            where = L("results pane (3)") },
          answered{ value = lab.answer("ring_vs_nccl"), expected = out.mine > out.nccl_ring and "above" or "below",
                    what = L("your prediction"), hidden = L("what the table shows, and why (the step text)"),
                    where = L("results pane (3)") },
        }
        return checks.all(v)
      end,
    },
    {
      id = "busbw", title = "busbw for n ranks: what your ring sends",
      text = "steps/04-busbw.md",
      exercise = "ring.lua",
      hints = {
        "Count the sends of your all_reduce on one rank, and how long each is compared with the whole buffer.",
        "Reduce-scatter and all-gather each take n-1 steps of one chunk.",
      },
      questions = {
        { id = "factor_3", ask = "Each rank's bytes sent by the ring all-reduce, as a multiple of the buffer size S, for n = 3?" },
        { id = "factor_5", ask = "The same for n = 5?" },
      },
      run = function(lab)
        local out, rows = { factor = {} }, {}
        for i, n in ipairs({ 3, 5, 8 }) do
          lab.progress((i - 1) / 3, L("your ring on %d ranks", n))
          local res, row = time_run(lab, n, { NCCL_ALGO = "Ring" })
          out[n] = row
          if row and row.ring_ms then
            out.factor[n] = row.sent / row.bytes
            rows[#rows + 1] = { tostring(n), string.format("%.3f", row.ring_ms),
                                string.format("%.1f", row.bytes / (row.ring_ms * 1e6)),
                                string.format("%.1f", row.bytes / (row.nccl_ms * 1e6)) }
          else
            out.broken = out.broken or res
          end
        end
        lab.table{ title = L("all-reduce of 256 MiB f32, SIMULATED %s: algbw = S / time", TIMING_MACHINE),
                   columns = { L("ranks"), L("your ring (ms)"), L("your algbw (GB/s)"), L("NCCL ring algbw (GB/s)") }, rows = rows }
        return out
      end,
      check = function(lab, out)
        if out.broken then return broken(out.broken, L("the timing run of your all_reduce")) end
        local v = {}
        for _, n in ipairs({ 3, 5 }) do
          v[#v + 1] = sent_something(out[n], n)
          v[#v + 1] = answered{ value = lab.answer("factor_" .. n), expected = out.factor[n], rtol = 0.01,
                                what = L("bytes sent per rank / S for n = %d", n),
                                hidden = L("what your ring's sends add up to, over the buffer"), where = L("your ring.lua") }
        end
        return checks.all(v)
      end,
    },
    {
      id = "doubling", title = "Exercise 3: recursive doubling, the small-message all-reduce",
      text = "steps/05-doubling.md",
      exercise = "ring.lua",
      hints = {
        "With 4 ranks: step 0 pairs 0-1 and 2-3, step 1 pairs 0-2 and 1-3. After step k a rank holds the sum of a group of 2^(k+1) ranks.",
        "The partner in step k is r xor 2^k (Lua: r ~ d). Both partners send and receive: one group.",
        "With 3, 5, 6 or 7 ranks the ranks past the largest power of two p must fold in before the doubling and get the result after it; they take no part in between.",
      },
      run = function(lab) return run_modes(lab, { "rd" }, { 2, 3, 5, 6, 8 }, true) end,
      check = function(lab, runs) return judge_all(runs) end,
    },
    {
      id = "crossover", title = "Ring or doubling: the latency crossover",
      text = "steps/06-crossover.md",
      exercise = "ring.lua",
      hints = {
        "Each algorithm's time is a latency plus bytes over a bandwidth: t = a + S / B. The smallest size gives a, the largest gives B.",
        "The crossover is the S where the two lines meet: a_ring + S / B_ring = a_dbl + S / B_dbl.",
      },
      questions = {
        { id = "crossover", ask = "From the two rows shown: above which message size is your ring faster than recursive doubling on 8 ranks (e.g. 512K, 3M)?" },
      },
      run = function(lab)
        lab.progress(0, L("your ring, 8 ranks, 32 B to 128 MiB"))
        local ring = lab.spmd(lab.exercise, { ranks = 8, args = { "sweep", "0" }, timeout = 60, machine = TIMING_MACHINE })
        lab.progress(0.5, L("your recursive doubling, 8 ranks, 32 B to 128 MiB"))
        local dbl = lab.spmd(lab.exercise, { ranks = 8, args = { "sweep", "0", "whole" }, timeout = 60, machine = TIMING_MACHINE })
        local out = { ring = ring, dbl = dbl }
        out.ring_sizes, out.ring_row = sweep_rows(ring)
        out.dbl_sizes, out.dbl_row = sweep_rows(dbl)
        if out.ring_sizes and out.dbl_sizes then
          out.cross = crossover(out.dbl_sizes, out.ring_sizes)
          local rows, answered_yet = {}, lab.answer("crossover") ~= nil
          for i, a in ipairs(out.ring_sizes) do
            local b = out.dbl_sizes[i]
            if answered_yet or i == 1 or i == #out.ring_sizes then
              rows[#rows + 1] = { size_text(a.bytes), string.format("%.1f", a.ms * 1000),
                                  string.format("%.1f", b.ms * 1000) }
            end
          end
          lab.table{ title = answered_yet and L("all-reduce on 8 ranks, SIMULATED %s: modelled us", TIMING_MACHINE)
                               or L("all-reduce on 8 ranks, SIMULATED %s: modelled us (the smallest and the largest size: "
                                    .. "the sweep shows when you have answered)", TIMING_MACHINE),
                     columns = { L("size"), L("your ring (us)"), L("your doubling (us)") }, rows = rows }
          if out.cross then lab.record("crossover_bytes", out.cross) end
        end
        return out
      end,
      check = function(lab, out)
        if not out.ring_sizes then return broken(out.ring, L("the sweep of your ring.all_reduce")) end
        if not out.dbl_sizes then return broken(out.dbl, L("the sweep of your ring.doubling")) end
        local v = {}
        local sends = out.dbl_row.ops and out.dbl_row.ops.send or 0
        v[#v + 1] = { ok = sends > 0, msg = sends > 0 and L("your doubling sent its messages")
                                               or L("your ring.doubling sent nothing: there is nothing to time yet"),
                      saw = L("%d sends", sends), wanted = L("the sends of your doubling"), where = L("your ring.lua: ring.doubling") }
        if not out.cross then
          v[#v + 1] = { ok = false, msg = L("your ring and your doubling do not cross between 32 B and 128 MiB"),
                        saw = L("no crossover"), wanted = L("doubling faster at small sizes, ring at large"), where = L("results pane (3)") }
        else
          local got = parse_size(lab.answer("crossover"))
          local a = lab.answer("crossover")
          if a ~= nil and not got then
            v[#v + 1] = { ok = false, msg = L("the crossover: %q is not a size (write 512K, 3M or bytes)", a),
                          saw = a, wanted = L("a size"), where = L("question crossover") }
          else
            v[#v + 1] = answered{ value = got and (math.abs(math.log(got / out.cross, 2)) <= 1 and "near" or "far"),
                                  shown = a, expected = "near", what = L("your crossover prediction"),
                                  hidden = L("within a factor of 2 of where the measured lines cross"),
                                  where = L("results pane (3): t = latency + size / bandwidth for each") }
          end
        end
        return checks.all(v)
      end,
    },
    {
      id = "deadlock", title = "Exercise 4: every rank sends first - the deadlock, and mgpu.group",
      text = "steps/07-deadlock.md",
      exercise = "exchange.lua",
      hints = {
        "The flight table: what has every rank entered, and what has none of them reached?",
        "A large send completes only when the peer receives. Who receives, while everyone sends?",
        "NCCL's answer is a group: calls inside mgpu.group(function() ... end) start together at its end.",
      },
      questions = {
        { id = "stuck_op", ask = "In the original exchange.lua with a large message, which call is every rank stuck in (send/recv)?" },
      },
      run = function(lab)
        local out = { runs = {} }
        local timeout = hang_timeout(lab)
        for i, spec in ipairs({ { n = 4, elems = 16 * 1024 * 1024 }, { n = 5, elems = 16 * 1024 * 1024 }, { n = 4, elems = 256 } }) do
          lab.progress((i - 1) / 4, L("your exchange.lua, %d ranks, %d elements", spec.n, spec.elems))
          out.runs[i] = { n = spec.n, elems = spec.elems,
                          res = lab.spmd(lab.exercise, { ranks = spec.n, args = { tostring(spec.elems) }, timeout = timeout }) }
        end
        out.evidence = out.runs[1].res
        out.evidence_is = L("your exchange.lua")
        if out.runs[1].res.ok then
          lab.progress(0.75, L("the original exchange.lua (for the flight records)"))
          out.evidence = lab.spmd("exercises/exchange.lua", { ranks = 4, args = { tostring(16 * 1024 * 1024) }, timeout = timeout })
          out.evidence_is = L("the original exchange.lua")
        end
        flight_table(lab, out.evidence, L("flight records of %s, 64 MiB a rank", out.evidence_is))
        return out
      end,
      check = function(lab, out)
        local v = {}
        for _, run in ipairs(out.runs) do
          local what = L("exchange.lua on %d ranks, %d f32 a message", run.n, run.elems)
          local res = run.res
          if not res.ok then
            v[#v + 1] = broken(res, what, L("results pane (3): the flight table, and your exchange.lua"))
          else
            local bad
            for r = 0, run.n - 1 do
              local row = (res.ranks[r].results or {})[1]
              local want = (r - 1) % run.n
              if not row or row.got ~= want or row.mismatches ~= 0 then
                bad = bad or L("rank %d received %s, not rank %d's message", r,
                                           row and (row.mismatches ~= 0 and L("rank %s's data (damaged)", tostring(row.got))
                                                                      or L("rank %s's data", tostring(row.got)))
                                               or L("nothing"), want)
              end
            end
            v[#v + 1] = { ok = bad == nil, msg = bad and L("%s: %s", what, bad) or L("%s: every rank got its left neighbour's message", what),
                          saw = bad or L("right"), wanted = L("every rank holds the message of the rank before it"),
                          where = L("log pane (5) and your exchange.lua") }
          end
        end
        local stuck
        for r = 0, nranks(out.evidence) - 1 do
          for _, comm in ipairs(out.evidence.ranks[r].flight or {}) do
            local last = comm.entries and comm.entries[#comm.entries]
            if last and last.state ~= "completed" then stuck = last.op end
          end
        end
        v[#v + 1] = answered{ value = lab.answer("stuck_op"), expected = stuck or "send", what = L("the call every rank is stuck in"),
                              hidden = L("the last entry of each rank's column"), where = L("results pane (3): the flight table") }
        return checks.all(v)
      end,
    },
    {
      id = "alltoall", title = "Exercise 5: all-to-all with uneven splits (MoE's token exchange)",
      text = "steps/08-alltoall.md",
      exercise = "alltoallv.lua",
      hints = {
        "A receiver cannot know how many tokens will come from each rank unless someone tells it. What collective tells everyone one number from everyone?",
        "First exchange the counts: an i32 tensor of n counts through comm:alltoall. Then size the receives from what came back.",
        "The sends and receives of the exchange go in one mgpu.group, or they wait for each other.",
      },
      run = function(lab)
        local out = {}
        for i, n in ipairs({ 2, 3, 4, 7 }) do
          lab.progress((i - 1) / 4, L("your all-to-all on %d ranks", n))
          out[#out + 1] = { n = n, res = lab.spmd(lab.exercise, { ranks = n, timeout = hang_timeout(lab) }) }
        end
        return out
      end,
      check = function(lab, out)
        local v = {}
        for _, run in ipairs(out) do
          local what = L("your all-to-all on %d ranks", run.n)
          local res = run.res
          if not res.ok then
            v[#v + 1] = broken(res, what, L("log pane (5) and your alltoallv.lua"))
          else
            local bad
            for r = 0, run.n - 1 do
              local row = (res.ranks[r].results or {})[1]
              if not row then bad = bad or L("rank %d reported nothing", r)
              else
                for _, p in ipairs(row.pieces or {}) do
                  if not p.ok then
                    bad = bad or L("rank %d: the tokens from rank %d are wrong (%s)", r, p.from, p.why)
                  end
                end
                if #(row.pieces or {}) ~= run.n then bad = bad or L("rank %d checked %d pieces of %d", r, #(row.pieces or {}), run.n) end
              end
            end
            v[#v + 1] = { ok = bad == nil, msg = bad and L("%s: %s", what, bad) or L("%s: every rank got every rank's tokens for it", what),
                          saw = bad or L("right"), wanted = L("rank r holds, from each rank j, exactly the tokens j routed to r"),
                          where = L("log pane (5) and your alltoallv.lua") }
          end
        end
        return checks.all(v)
      end,
    },
  },
}
