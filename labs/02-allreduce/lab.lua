-- labs/02-allreduce/lab.lua - the note's practice 2: an nccl-tests sweep,
-- algbw vs busbw, the peak of your links, LL vs Simple.

local MiB = 1024 * 1024

-- One rank per GPU of this host, as nccl-tests under `mpirun -np N`; at
-- least 2 (on one GPU the framework runs them as emulated nodes). --ranks
-- overrides. (The topology is discovered once per run and cached.)
local function nranks(lab)
  local topo, n = lab.topo(), 0
  local host = topo.gpus and topo.gpus[1] and topo.gpus[1].host or 0
  for _, g in ipairs(topo.gpus or {}) do if g.host == host then n = n + 1 end end
  if n == 0 then n = math.tointeger(lab.backend.gpus) or 1 end
  return math.max(2, n)
end

local function size_name(b)
  if b >= 1024 * MiB then return string.format("%g GiB", b / (1024 * MiB)) end
  if b >= MiB then return string.format("%g MiB", b / MiB) end
  if b >= 1024 then return string.format("%g KiB", b / 1024) end
  return string.format("%d B", b)
end

local function f2(x) return type(x) == "number" and string.format("%.2f", x) or "-" end

-- The bench's rows that were measured (out-of-place half).
local function rows_of(r)
  local out = {}
  for _, row in ipairs((r and r.rows) or {}) do
    if type(row.out_of_place) == "table" then out[#out + 1] = row end
  end
  return out
end

local function bench_table(lab, title, r)
  local rows = {}
  for _, row in ipairs(rows_of(r)) do
    local o = row.out_of_place
    rows[#rows + 1] = { size_name(row.size), row.count, f2(o.time), f2(o.alg_bw), f2(o.bus_bw),
                        o.nwrong == nil and "N/A" or tostring(o.nwrong) }
  end
  lab.table{ title = title, columns = { "size", "count", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "#wrong" },
             rows = rows }
end

-- The row of the largest size, and the best busbw among rows >= min_size.
local function largest(r)
  local best
  for _, row in ipairs(rows_of(r)) do
    if not best or row.size > best.size then best = row end
  end
  return best
end

-- The link between GPU a and b (0-based) in the topology matrix.
local function link(topo, a, b)
  local rows = topo and topo.matrix and topo.matrix.rows
  local row = rows and rows[a + 1]
  return row and row[b + 1] or nil
end

local function peer_ok(topo, a, b)
  local pa = topo and topo.peer_access
  local row = pa and pa[a + 1]
  if row == nil then return nil end
  return row[b + 1]
end

-- The link to compare with: the GPU0-GPU1 link lab 1 recorded on this machine
-- (lab.measured is per machine), else the
-- one the topology shows now.
local function design_link(lab, topo)
  local rec = lab.measured("01-topology", "matrix", "link")
  if type(rec) == "string" and rec ~= "" and rec ~= "none" then return rec, L("GPU0-GPU1, recorded in lab 1 on this machine") end
  if #(topo.gpus or {}) >= 2 then
    local l = link(topo, 0, 1)
    if l then return l, L("GPU0-GPU1 in the topology") end
  end
  return "PCIe", L("GPU0's PCIe link")
end

-- A check that measures what a question asks keeps its pass or fail, but
-- says its numbers only once the learner's answer is right: until then
-- `hidden` ({msg, saw, wanted}) stands for its texts.
local function withhold(v, answer, hidden)
  if answer.ok then return v end
  return { ok = v.ok, msg = hidden.msg, saw = hidden.saw, wanted = hidden.wanted, where = v.where }
end

-- nccl-tests' bus-bandwidth factors (its doc/PERFORMANCE.md), for rank
-- counts the bench did not run: a formula right only for this machine's n
-- (x1.75 is all_reduce on 8 ranks and on no other count) must fail too.
local BUS_FACTOR = {
  all_reduce = function(n) return 2 * (n - 1) / n end,
  all_gather = function(n) return (n - 1) / n end,
  broadcast  = function() return 1 end,
}
local PROBE_RANKS = { 3, 4, 8 }

local function near(a, b) return math.abs(a - b) <= 1e-3 * math.max(math.abs(b), 1e-9) end

-- The learner's busbw / algbw for coll on n ranks, or nil and why not.
local function factor_of(fn, coll, n)
  local algbw = 100                                -- any algbw: busbw is proportional to it
  local fine, v = pcall(fn, coll, algbw, n)
  if not fine then return nil, L("raised an error: %s", tostring(v)) end
  if type(v) ~= "number" or v ~= v then return nil, L("returned %s, not a number", tostring(v)) end
  return v / algbw
end

-- What a wrong formula for coll looks like, from its factors f[n] at the
-- rank counts ns - said without the right factor. `src` is busbw.lua's code.
local function formula_fault(coll, f, ns, src)
  local function every(pred) for _, n in ipairs(ns) do if not pred(n) then return false end end return true end
  local right = BUS_FACTOR[coll]
  if tostring(src or ""):gsub("%-%-[^\n]*", ""):find("//", 1, true)
     and every(function(n) return near(f[n], math.floor(right(n))) end) then
    return L("integer division: // drops the fraction of the factor")
  end
  if every(function(n) return near(f[n], f[ns[1]]) end) then
    return L("it gives %.3g x algbw at every n - a constant fits one rank count only; the factor "
      .. "depends on n, through the bytes each rank moves", f[ns[1]])
  end
  for _, other in ipairs({ "all_reduce", "all_gather" }) do
    if other ~= coll and every(function(n) return near(f[n], BUS_FACTOR[other](n)) end) then
      return L("that is %s's factor, not %s's", other, coll) .. (coll == "all_reduce"
        and L(" - all_reduce is a reduce-scatter and then an all-gather") or "")
    end
  end
  if every(function(n) return f[n] ~= 0 and near(1 / f[n], right(n)) end) then
    return L("yours divides algbw by the factor instead of multiplying it: algbw and busbw swapped")
  end
  return nil
end

-- One verdict on the learner's busbw for coll: the bench's rows on its n
-- ranks, and the factor at the PROBE_RANKS counts.
local function judge_busbw(fn, coll, r, mine, src)
  local n = r.ranks
  local nbad, worst = 0, nil
  for i, row in ipairs(rows_of(r)) do
    local v, want = mine[i], row.out_of_place.bus_bw
    if type(v) ~= "number" or not near(v, want) then
      nbad = nbad + 1
      worst = { row = row, v = v }                 -- the largest size that differs: the readable numbers
    end
  end
  local ns, f, wrong, fine = { n }, {}, {}, {}
  for _, k in ipairs(PROBE_RANKS) do if k ~= n then ns[#ns + 1] = k end end
  table.sort(ns)
  for _, k in ipairs(ns) do
    local x, why = factor_of(fn, coll, k)
    if not x then
      return { ok = false, msg = L("busbw.lua %s for %s on n = %d", why, coll, k), saw = why,
               wanted = L("a number: busbw in GB/s"), where = L("your busbw.lua") }
    end
    f[k] = x
  end
  for _, k in ipairs(PROBE_RANKS) do
    if near(f[k], BUS_FACTOR[coll](k)) then fine[#fine + 1] = k else wrong[#wrong + 1] = k end
  end
  local where = L("your busbw.lua; the step text: bytes per rank")
  local saws = {}
  for _, k in ipairs(ns) do saws[#saws + 1] = L("n = %d: %.4g x algbw", k, f[k]) end
  local wanted = L("busbw = algbw x %s's factor for n ranks: the bench's busbw column on its %d ranks, "
    .. "row by row, and the factor at n = %s", coll, n, table.concat(PROBE_RANKS, ", "))
  if #wrong == 0 and nbad == 0 then
    return { ok = true, msg = L("your %s busbw matches the bench's busbw column on %d ranks (%d rows) and "
      .. "the factor at n = %s", coll, n, #rows_of(r), table.concat(PROBE_RANKS, ", ")), saw = table.concat(saws, "; "),
      wanted = wanted, where = where }
  end
  local parts = {}
  if #wrong > 0 then
    parts[1] = L("your %s busbw is wrong at n = %s", coll, table.concat(wrong, ", "))
      .. (#fine > 0 and L(" (right at n = %s)", table.concat(fine, ", ")) or "")
  else
    parts[1] = L("your %s busbw is wrong on the bench's %d ranks", coll, n)
  end
  local fault = formula_fault(coll, f, ns, src)
  if fault then parts[1] = parts[1] .. ": " .. fault end
  if nbad > 0 then
    parts[2] = L("on the bench's %d ranks %d of %d rows differ from its busbw column (%s: yours %s, the "
      .. "bench's %s GB/s)", n, nbad, #rows_of(r), size_name(worst.row.size),
      type(worst.v) == "number" and f2(worst.v) or tostring(worst.v), f2(worst.row.out_of_place.bus_bw))
  end
  local msg = table.concat(parts, "; ")
  return { ok = false, msg = msg, saw = table.concat(saws, "; "), wanted = wanted, where = where }
end

-- Reasons a ring all-reduce falls short of the GPU0-GPU1 link's peak, read
-- from the backend and the topology (docs/topology-model.md).
local function explain(lab, topo, n)
  local why = {}
  local b = lab.backend
  if b.emulated then
    why[#why + 1] = L("emulated nodes: %s - every byte crosses a TCP socket through host memory, so NVLink's or "
      .. "PCIe's peak does not apply", b.why or L("the ranks share GPUs"))
  end
  local g = #(topo.gpus or {})
  if g >= 2 and not b.emulated then
    -- the ring 0 -> 1 -> ... -> n-1 -> 0 (on the GPUs the ranks use)
    local m = math.min(n, g)
    local slow, slow_peak
    for i = 0, m - 1 do
      local j = (i + 1) % m
      local l = link(topo, i, j)
      if l then
        local p = lab.peak(l)
        if p and (not slow_peak or p < slow_peak) then slow, slow_peak = string.format("GPU%d-GPU%d %s", i, j, l), p end
      end
      if peer_ok(topo, i, j) == false then
        why[#why + 1] = L("no peer access GPU%d -> GPU%d (path %s): NCCL cannot use P2P there and stages "
          .. "the data through host memory (SHM) - the note's 'topology mismatch' pitfall", i, j, tostring(l))
      end
    end
    if slow then
      why[#why + 1] = L("the slowest hop of the ring is %s at %.1f GB/s: a ring runs at the speed of its "
        .. "slowest link", slow, slow_peak)
    end
    local l = link(topo, 0, 1) or ""
    if not l:match("^NV") then
      why[#why + 1] = L("GPU0-GPU1 is %s, a PCIe path - no NVLink between them (nvidia-smi topo -m shows the same)", l)
    end
  end
  for _, note in ipairs(topo.notes or {}) do why[#why + 1] = L("topology note: %s", tostring(note)) end
  if b.simulated then why[#why + 1] = L("SIMULATED machine %s: the numbers are the link model's", tostring(b.machine)) end
  return why
end

return {
  title    = "All-reduce baseline",
  summary  = "An nccl-tests sweep 8 B - 256 MiB, algbw vs busbw, your links' peak, LL vs Simple",
  backends = "cuda (one rank per GPU; 2 ranks as emulated nodes on one GPU) and sim (any preset, faults too)",
  ranks    = 2,
  steps = {
    {
      id = "sweep", title = "Sweep 8 B to 256 MiB",
      text = "steps/01-sweep.md",
      hints = { "The results pane (3) shows every row; the last one is 256 MiB.",
                "Answer busbw256 with the busbw column of the 256 MiB row, in GB/s (two decimals are plenty)." },
      questions = { { id = "busbw256", ask = "busbw at 256 MiB in GB/s (results pane, last row)?" } },
      run = function(lab)
        lab.progress(0, "all_reduce 8 B - 256 MiB")
        local r = lab.bench("all_reduce", { b = 8, e = "256M", f = 2, ranks = nranks(lab) })
        bench_table(lab, L("all_reduce, %d ranks", r.ranks or 0), r)
        local big = largest(r)
        if big then
          lab.record("busbw_256M", big.out_of_place.bus_bw)
          lab.record("algbw_256M", big.out_of_place.alg_bw)
        end
        lab.record("ranks", r.ranks or 0)
        if type(r.avg_bus_bw) == "number" then lab.record("avg_busbw", r.avg_bus_bw) end
        return r
      end,
      check = function(lab, r)
        local rows = rows_of(r)
        local big = largest(r)
        local wrong = 0
        for _, row in ipairs(rows) do
          wrong = wrong + (tonumber(row.out_of_place.nwrong) or 0) + (tonumber(row.in_place and row.in_place.nwrong) or 0)
        end
        return {
          checks.equals{ value = #rows, expected = 26, what = L("sizes measured (8 B, 16 B, ... 256 MiB)"),
                         where = L("results pane (3)") },
          checks.equals{ value = wrong, expected = 0, what = L("wrong elements (#wrong, all rows)"),
                         where = L("results pane (3), column #wrong") },
          checks.close{ value = lab.answer("busbw256"), expected = big and big.out_of_place.bus_bw, rtol = 0.01, answer = true,
                        unit = "GB/s", what = L("your reading of busbw at 256 MiB"), where = L("results pane (3), last row") },
        }
      end,
    },
    {
      id = "busbw", title = "Exercise: bus bandwidth from algorithm bandwidth",
      text = "steps/02-busbw.md",
      exercise = "busbw.lua",
      hints = {
        "busbw counts what one rank's link really carries, per byte of the buffer the program asked for. Cut the "
          .. "buffer into n blocks, one per rank, and count the blocks a rank must send in each collective.",
        "all_reduce on a ring is two passes: a reduce-scatter (each rank ends with one block summed over all ranks), "
          .. "then an all-gather of those blocks. How many blocks does a rank send in each pass? Its own block it "
          .. "never has to receive.",
        "broadcast: the root's data goes round once, every rank passing on what it got - think of what each link "
          .. "carries, not of how many ranks receive. Try your formula at n = 2 and n = 3 by hand.",
      },
      run = function(lab)
        local n = nranks(lab)
        local out = {}
        for i, coll in ipairs({ "all_reduce", "all_gather", "broadcast" }) do
          lab.progress((i - 1) / 3, coll)
          out[coll] = lab.bench(coll, { b = "1K", e = "16M", f = 8, ranks = n })
        end
        return out
      end,
      check = function(lab, out)
        local ok, mod = pcall(lab.load, lab.exercise)
        if not ok or type(mod) ~= "function" then
          return { ok = false, msg = L("busbw.lua must return a function(coll, algbw, n): %s", tostring(ok and type(mod) or mod)),
                   saw = ok and L("a %s", type(mod)) or L("an error"), wanted = "return function(coll, algbw, n) ... end",
                   where = L("your busbw.lua") }
        end
        local src = lab.read(lab.exercise)
        local verdicts, rows = {}, {}
        for _, coll in ipairs({ "all_reduce", "all_gather", "broadcast" }) do
          local r = out[coll]
          local n = r.ranks
          local mine = {}
          for _, row in ipairs(rows_of(r)) do
            local o = row.out_of_place
            local fine, v = pcall(mod, coll, o.alg_bw, n)
            if not fine then
              return { ok = false, msg = L("busbw.lua raised an error for %s: %s", coll, tostring(v)),
                       saw = L("an error"), wanted = L("a number"), where = L("your busbw.lua") }
            end
            mine[#mine + 1] = v
            rows[#rows + 1] = { coll, size_name(row.size), n, f2(o.alg_bw), f2(o.bus_bw), type(v) == "number" and f2(v) or tostring(v) }
          end
          verdicts[#verdicts + 1] = judge_busbw(mod, coll, r, mine, src)
        end
        lab.table{ title = L("busbw: yours vs the bench"), columns = { "collective", "size", "n", "algbw", L("bench busbw"), L("your busbw") },
                   rows = rows }
        return verdicts
      end,
    },
    {
      id = "peak", title = "How close to the peak of your links?",
      text = "steps/03-peak.md",
      hints = {
        "The bar is the note's: 80 % of the link's peak at the large sizes.",
        "If the check fails, its message lists the causes found in the topology: read it against the topology pane (1).",
        "Try the sim with --fault nvlink-down or --machine pcie-4gpu to see the check fail for a reason you know.",
      },
      run = function(lab)
        local n = nranks(lab)
        local topo = lab.topo()
        -- the ring, whose busbw is what each link carries: on NVSwitch
        -- machines NCCL would pick NVLS (step 4), whose busbw is not
        lab.progress(0.1, "all_reduce 64 MiB - 256 MiB, NCCL_ALGO=Ring")
        local r = lab.bench("all_reduce", { b = "64M", e = "256M", f = 2, ranks = n, env = { NCCL_ALGO = "Ring" } })
        bench_table(lab, L("all_reduce at the large sizes, the ring (NCCL_ALGO=Ring)"), r)
        local res = { r = r, topo = topo, n = r.ranks or n }
        if lab.backend.emulated or (lab.backend.gpus or 0) < res.n then
          -- The ranks talk over sockets: the link to compare with is the
          -- socket itself, measured by a plain send/recv between two ranks.
          lab.progress(0.6, L("sendrecv 256 MiB over the same transport"))
          local s = lab.bench("sendrecv", { b = "256M", e = "256M", ranks = 2 })
          local row = largest(s)
          res.peak = row and row.out_of_place.bus_bw
          if lab.backend.emulated then
            res.peak_what = L("the socket transport (sendrecv measured between two emulated nodes)")
            res.link = "NET/Socket"
          else
            res.peak_what = L("sendrecv between two ranks sharing GPU 0 (measured)")
            res.link = "shared GPU"
          end
        else
          local l, from = design_link(lab, topo)
          res.link = l
          local p, src = lab.peak(l)
          res.peak, res.peak_what = p, l .. " (" .. from .. ")"
          lab.log(L("peak of %s: %s GB/s - %s", l, tostring(p), tostring(src)))
        end
        if res.peak then lab.record("peak_gbs", res.peak) end
        lab.record("link", res.link)
        local big = largest(r)
        if big then lab.record("busbw_256M", big.out_of_place.bus_bw) end
        return res
      end,
      check = function(lab, res)
        local big = largest(res.r)
        local v = checks.bandwidth{ value = big and big.out_of_place.bus_bw, peak = res.peak, fraction = 0.8,
          peak_what = res.peak_what, what = L("all_reduce busbw at %s", big and size_name(big.size) or "256 MiB"),
          where = L("results pane (3), last row; topology pane (1)") }
        if not v.ok then
          local why = explain(lab, res.topo, res.n)
          if #why > 0 then v.msg = L("%s. Why, from your topology: %s.", v.msg, table.concat(why, "; ")) end
        end
        return v
      end,
    },
    {
      id = "nvls", title = "NVLink SHARP: busbw above the link's peak",
      text = "steps/04-nvls.md",
      hints = {
        "Count bytes per GPU, phase by phase, for a buffer of S on n GPUs: what leaves a GPU when the switch reads "
          .. "its buffer for the sums, and when it stores its own reduced shard; the same comes in the other way.",
        "link_gbs is those bytes per GPU per direction over the time of one call: a multiple of algbw, and the "
          .. "multiple depends on n.",
        "nvls_peak: if a link moved its peak, the time would be the bytes of the first hint over that peak; busbw "
          .. "is S / time x 2(n-1)/n whatever the algorithm was.",
      },
      questions = {
        { id = "link_gbs", ask = "With NVLS at 256 MiB, how many GB/s does one GPU's NVLink carry in one direction?" },
        { id = "nvls_peak", ask = "What busbw would NVLS show on these GPUs if every link ran at its peak?" },
      },
      run = function(lab)
        local n = nranks(lab)
        lab.progress(0, L("all_reduce 1 MiB - 256 MiB as NCCL picks"))
        local on = lab.bench("all_reduce", { b = "1M", e = "256M", f = 4, ranks = n, env = { NCCL_DEBUG = "INFO" } })
        lab.progress(0.5, "all_reduce 1 MiB - 256 MiB, NCCL_NVLS_ENABLE=0")
        local off = lab.bench("all_reduce", { b = "1M", e = "256M", f = 4, ranks = n,
                                              env = { NCCL_DEBUG = "INFO", NCCL_NVLS_ENABLE = "0" } })
        local function algo(r, size)
          for _, t in ipairs((r.nccl and r.nccl.tuning) or {}) do
            if t.coll == "AllReduce" and t.bytes == size then return tostring(t.algo) .. "/" .. tostring(t.proto) end
          end
          return "?"
        end
        local rows, by = {}, {}
        for _, row in ipairs(rows_of(off)) do by[row.size] = row end
        local res = { n = on.ranks or n, on = on, off = off }
        for _, row in ipairs(rows_of(on)) do
          local o, f = row.out_of_place, by[row.size] and by[row.size].out_of_place
          local a = algo(on, row.size)
          rows[#rows + 1] = { size_name(row.size), a, f2(o.alg_bw), f2(o.bus_bw), algo(off, row.size), f2(f and f.bus_bw) }
          if not res.big or row.size > res.big.size then
            res.big = { size = row.size, algbw = o.alg_bw, busbw = o.bus_bw, algo = a, ring = f and f.bus_bw }
          end
        end
        lab.table{ title = L("all_reduce, %d ranks: as NCCL picks, and NCCL_NVLS_ENABLE=0", res.n),
                   columns = { "size", "algo/proto", "algbw", "busbw", "NVLS off: algo", "busbw" }, rows = rows }
        local l = design_link(lab, lab.topo())
        res.link, res.peak = l, lab.peak(l)
        if res.big then lab.record("nvls_busbw_256M", res.big.busbw); lab.record("ring_busbw_256M", res.big.ring) end
        return res
      end,
      check = function(lab, res)
        local big = res.big
        if not big then
          return { ok = false, msg = L("the sweep measured nothing"), saw = L("no rows"), wanted = "1 MiB - 256 MiB",
                   where = L("results pane (3)") }
        end
        if not tostring(big.algo):match("^NVLS") then
          -- no NVSwitch (or NCCL said no): nothing of NVLS to measure here
          local g = lab.backend.gpus or 0
          local why = lab.backend.emulated and L("emulated nodes talk over sockets")
                      or g < res.n and (g == 1 and L("%d ranks share %d GPU", res.n, g) or L("%d ranks share %d GPUs", res.n, g))
                      or not tostring(res.link):match("^NV") and L("GPU0-GPU1 is %s, not NVLink", tostring(res.link))
                      or L("NCCL chose %s at %s", tostring(big.algo), size_name(big.size))
          return { ok = true, msg = L("no NVLink SHARP on this machine (%s): NCCL never picks NVLS without "
                     .. "NVSwitches. The questions are for a DGX: mgpulab run 2 --step nvls --backend sim --machine dgx-h100", why),
                   saw = L("algorithm at %s: %s", size_name(big.size), tostring(big.algo)),
                   wanted = L("NVLS where the machine has it"), where = L("results pane (3), column algo/proto") }
        end
        local n = res.n
        local v = {
          checks.bandwidth{ value = big.busbw, peak = big.ring, fraction = 1.1, what = L("NVLS busbw at %s", size_name(big.size)),
                            peak_what = L("the ring's (NCCL_NVLS_ENABLE=0): NVLS should beat it by 10 %%"),
                            where = L("results pane (3), last row") },
        }
        local link = checks.close{ value = lab.answer("link_gbs"), expected = big.algbw * (n + 1) / n, rtol = 0.05,
                                   answer = true, unit = "GB/s", what = L("GB/s one GPU's NVLink carries each way under NVLS"),
                                   where = L("the step text's two phases: bytes per GPU for S on n GPUs; results pane (3), algbw") }
        -- pointed: the two numbers a half-understanding gives
        local a = tonumber(lab.answer("link_gbs"))
        if a and not link.ok and not link.unanswered then
          if math.abs(a - big.busbw) <= 0.05 * big.busbw then
            link.msg = link.msg .. L(" - that is busbw: the ring's bytes per link, which NVLS does not move")
          elseif math.abs(a - big.algbw) <= 0.05 * big.algbw then
            link.msg = link.msg .. L(" - a GPU moves more than its buffer once each way: count the reduced shard too")
          end
        end
        v[#v + 1] = link
        if res.peak then
          local peak = checks.close{ value = lab.answer("nvls_peak"), expected = res.peak * 2 * (n - 1) / (n + 1),
                                     rtol = 0.03, answer = true, unit = "GB/s",
                                     what = L("NVLS busbw with every link at its peak"),
                                     where = L("step 3's peak of your link; the bytes per GPU of link_gbs; busbw's factor") }
          local b = tonumber(lab.answer("nvls_peak"))
          if b and not peak.ok and not peak.unanswered and math.abs(b - res.peak) <= 0.03 * res.peak then
            peak.msg = peak.msg .. L(" - that is the link's own peak; busbw is the ring's formula applied to NVLS's time")
          end
          if peak.ok then
            lab.log(L("NVLS reached %.0f %% of its peak busbw (%.0f of %.0f GB/s): the switch's reduction, not "
                                  .. "the links, sets its pace - the 80 %% rule is the ring's (step 3)", 100 * big.busbw
                                  / (res.peak * 2 * (n - 1) / (n + 1)), big.busbw, res.peak * 2 * (n - 1) / (n + 1)))
            peak.msg = peak.msg .. L(" - the measured %.0f GB/s is %.0f %% of it: Hopper's NVLS is bound "
                                                 .. "by the switch's reduction, not by the links", big.busbw,
                                                 100 * big.busbw / (res.peak * 2 * (n - 1) / (n + 1)))
          end
          v[#v + 1] = peak
        end
        return v
      end,
    },
    {
      id = "protocols", title = "LL vs Simple: small and large messages",
      text = "steps/05-protocols.md",
      hints = { "Compare the time column at 4 KiB and the busbw column at 64 MiB in the table 'LL vs Simple'.",
                "Answer with the protocol's name: LL or Simple." },
      questions = {
        { id = "small", ask = "Which protocol is faster at 4 KiB: LL or Simple?" },
        { id = "large", ask = "Which protocol is faster at 64 MiB: LL or Simple?" },
      },
      run = function(lab)
        local n, res = nranks(lab), {}
        local k = 0
        for _, proto in ipairs({ "LL", "Simple" }) do
          for _, sz in ipairs({ "4K", "64M" }) do
            lab.progress(k / 4, L("NCCL_PROTO=%s at %s", proto, sz)); k = k + 1
            -- on the ring: NVLS (step 4) runs Simple only, and the
            -- comparison is of protocols, one algorithm
            local o = { b = sz, e = sz, ranks = n, env = { NCCL_PROTO = proto, NCCL_ALGO = "Ring" } }
            -- LL at 64 MiB over sockets takes seconds per call: fewer calls on a real machine
            if not lab.backend.simulated then o.n, o.w = 5, 1 end
            local r = lab.bench("all_reduce", o)
            res[proto .. "@" .. sz] = largest(r)
          end
        end
        local rows = {}
        for _, sz in ipairs({ "4K", "64M" }) do
          local ll, si = res["LL@" .. sz], res["Simple@" .. sz]
          local function c(x, f) return x and f2(x.out_of_place[f]) or "-" end
          rows[#rows + 1] = { sz, c(ll, "time"), c(si, "time"), c(ll, "bus_bw"), c(si, "bus_bw") }
        end
        lab.table{ title = "LL vs Simple", columns = { "size", "LL time (us)", "Simple time (us)", "LL busbw", "Simple busbw" },
                   rows = rows }
        return res
      end,
      check = function(lab, res)
        local function bw(key) local r = res[key]; return r and r.out_of_place.alg_bw end
        local function faster(a, b) -- protocol name with the higher algbw (= shorter time)
          local x, y = bw(a), bw(b)
          if not x or not y then return nil end
          return x >= y and a:match("^[^@]+") or b:match("^[^@]+")
        end
        local small
        if lab.backend.emulated then
          -- Over NCCL's socket transport a 4 KiB call costs milliseconds of
          -- socket latency: the protocol's microseconds disappear in it.
          local ll, si = res["LL@4K"], res["Simple@4K"]
          small = checks.close{ value = ll and ll.out_of_place.time, expected = si and si.out_of_place.time, rtol = 0.2,
            unit = "us", what = L("LL's time at 4 KiB over sockets (emulated nodes: socket latency hides the protocol, "
              .. "so LL and Simple should be within 20 %%)"), where = L("results pane (3), table 'LL vs Simple', 4K row") }
        else
          small = checks.bandwidth{ value = bw("LL@4K"), peak = bw("Simple@4K"), fraction = 1,
            what = L("LL's algbw at 4 KiB"), peak_what = L("Simple at 4 KiB (LL should win small messages)"),
            where = L("results pane (3), table 'LL vs Simple', 4K row") }
        end
        local small_answer = faster("LL@4K", "Simple@4K")
        if lab.backend.emulated then small_answer = { any = { "LL", "Simple" } } end
        local answers = {
          checks.equals{ value = lab.answer("small"), expected = small_answer,
            what = L("the faster protocol at 4 KiB (your measurement)"), where = L("results pane (3), 4K row"), answer = true },
          checks.equals{ value = lab.answer("large"), expected = faster("LL@64M", "Simple@64M"),
            what = L("the faster protocol at 64 MiB (your measurement)"), where = L("results pane (3), 64M row"), answer = true },
        }
        local large = checks.bandwidth{ value = bw("Simple@64M"), peak = bw("LL@64M"), fraction = 1,
          what = L("Simple's algbw at 64 MiB"), peak_what = L("LL at 64 MiB (Simple should win large messages)"),
          where = L("results pane (3), table 'LL vs Simple', 64M row") }
        -- the machine must show the note's result, but which protocol wins
        -- is the learner's to read: said only once answered right
        local function both(key)
          return L("algbw at %s: LL %s, Simple %s GB/s", key, f2(bw("LL@" .. key)), f2(bw("Simple@" .. key)))
        end
        if not lab.backend.emulated then
          small = withhold(small, answers[1], {
            msg = small.ok and L("at 4 KiB the note's protocol for small messages wins here too (which one: your question small)")
              or L("at 4 KiB the note's protocol for small messages does not win on this machine"),
            saw = both("4K"), wanted = L("the note's small-message protocol ahead at 4 KiB") })
        end
        large = withhold(large, answers[2], {
          msg = large.ok and L("at 64 MiB the note's protocol for large messages wins here too (which one: your question large)")
            or L("at 64 MiB the note's protocol for large messages does not win on this machine"),
          saw = both("64M"), wanted = L("the note's large-message protocol ahead at 64 MiB") })
        return { small, large, answers[1], answers[2] }
      end,
    },
    {
      id = "multicast", title = "Multicast: one store, every GPU",
      text = "steps/06-multicast.md",
      hints = {
        "Count what leaves each GPU in each broadcast: the root's copies, and what every other GPU passes on.",
        "In NCCL's broadcast every GPU but the last passes each chunk to the next one.",
        "The note's 'BW x N' compares one store with a root whose links carry a copy per GPU.",
      },
      questions = {
        { id = "ring_sent", ask = "NCCL's ring broadcast of S bytes on n GPUs: how many bytes leave all GPUs together, in units of S?" },
        { id = "mc_sent", ask = "The multicast broadcast: how many bytes leave all GPUs together, in units of S?" },
        { id = "bw_x_n", ask = "Against which broadcast does multicast give the note's 'BW x N': naive, ring or both?" },
      },
      run = function(lab)
        local sizes = { MiB, 16 * MiB, 256 * MiB }
        local args = {}
        for i, b in ipairs(sizes) do args[i] = tostring(b) end
        local n = nranks(lab)
        local res, whatif
        if lab.backend.simulated then
          lab.progress(0, L("broadcast three ways on %d ranks", n))
          res = lab.spmd("scripts/broadcast.lua", { ranks = n, args = args, timeout = 120 })
          local r0 = res.ok and res.ranks[0] and res.ranks[0].results and res.ranks[0].results[1]
          if r0 and r0.multicast_refused then
            whatif = L("this machine cannot multicast: %s", tostring(r0.multicast_refused):gsub("^.-comm:multicast: ", ""))
          end
        else
          whatif = L("mgpulab creates no multicast objects on real GPUs")
        end
        if whatif then
          lab.log(L("%s - all three broadcasts run on the sim's dgx-h100 model instead", whatif))
          lab.progress(0.5, L("broadcast three ways on the dgx-h100 model, 8 ranks"))
          res = lab.spmd("scripts/broadcast.lua", { ranks = 8, args = args, machine = "dgx-h100", timeout = 120 })
        end
        local out = { whatif = whatif, rows = {}, ok = res.ok, reason = res.reason }
        local rows = {}
        for _, row in ipairs((res.ok and res.ranks[0] and res.ranks[0].results) or {}) do
          out.n = row.ranks
          out.rows[#out.rows + 1] = row
          local function gbs(us) return type(us) == "number" and us > 0 and f2(row.bytes / (us * 1000)) or "-" end
          rows[#rows + 1] = { size_name(row.bytes), f2(row.naive), f2(row.ring), f2(row.multicast),
                              gbs(row.naive), gbs(row.ring), gbs(row.multicast) }
        end
        lab.table{ title = whatif and L("broadcast from rank 0, %d ranks (SIMULATED dgx-h100: a what-if)", out.n or 8)
                            or L("broadcast from rank 0, %d ranks", out.n or n),
                   columns = { "size", L("naive (us)"), L("ring (us)"), L("multicast (us)"),
                               L("naive algbw"), L("ring algbw"), L("multicast algbw") }, rows = rows }
        return out
      end,
      check = function(lab, res)
        local big = res.rows[#res.rows]
        if not res.ok or not big or not big.multicast then
          return { ok = false, msg = L("the broadcasts did not all run: %s", tostring(res.reason or "no rows")),
                   saw = L("%d rows", #res.rows), wanted = L("naive, ring and multicast at 1, 16 and 256 MiB"),
                   where = L("log pane (5)") }
        end
        local n = res.n
        local v = {}
        local ring = checks.close{ value = lab.answer("ring_sent"), expected = n - 1, rtol = 0.01, answer = true,
                                   what = L("bytes that leave the GPUs in the ring broadcast, in units of S"),
                                   where = L("how the ring passes chunks on (the step text)") }
        local a = tonumber(lab.answer("ring_sent"))
        if a and not ring.ok and not ring.unanswered then
          if a == n then ring.msg = ring.msg .. L(" - the last GPU of the chain has nobody to pass the data to")
          elseif a == 1 then ring.msg = ring.msg .. L(" - that is the root alone: every GPU of the chain passes it on") end
        end
        v[#v + 1] = ring
        local mc = checks.close{ value = lab.answer("mc_sent"), expected = 1, rtol = 0.01, answer = true,
                                 what = L("bytes that leave the GPUs in the multicast broadcast, in units of S"),
                                 where = L("who makes the copies (the step text)") }
        local b = tonumber(lab.answer("mc_sent"))
        if b and not mc.ok and not mc.unanswered then
          if b == n - 1 or b == n then mc.msg = mc.msg .. L(" - the copies are the switch's: count what leaves the GPUs")
          elseif b == 0 then mc.msg = mc.msg .. L(" - the root's store still crosses its own links once") end
        end
        v[#v + 1] = mc
        local choice = checks.equals{ value = lab.answer("bw_x_n"), expected = { any = { "naive" } }, answer = true,
                                      what = L("the broadcast multicast beats by about n-1 times"),
                                      where = L("the table's last row: each broadcast's time at 256 MiB") }
        local c = tostring(lab.answer("bw_x_n") or ""):lower()
        if not choice.ok and not choice.unanswered and (c == "ring" or c == "both") then
          choice.msg = choice.msg .. L(" - compare ring and multicast at 256 MiB: the chain already delivers at a "
                                       .. "link's rate to every GPU")
        end
        v[#v + 1] = choice
        if choice.ok then
          lab.log(L("at %s: naive %.0f us, ring %.0f us, multicast %.0f us - multicast saves the root's links "
                    .. "%d copies and the other GPUs all their sending, not the ring's time",
                    size_name(big.bytes), big.naive, big.ring, big.multicast, n - 2))
        end
        return v
      end,
    },
  },
}
