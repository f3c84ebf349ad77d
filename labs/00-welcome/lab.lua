-- labs/00-welcome/lab.lua - the shell, the backends, and how steps and
-- checks work; the hands-on step is a first SPMD script (docs/spmd.md).

-- The learner's hello.lua reports one row per rank: {rank, world, checksum}.
local COUNT = 1024   -- elements of the tensor each rank fills (hello.lua says so too)

-- The first result row of every rank, or nil.
local function rows_by_rank(res, nranks)
  local out = {}
  for r = 0, nranks - 1 do
    local rk = res and res.ranks and res.ranks[r]
    out[r] = rk and rk.results and rk.results[1] or nil
  end
  return out
end

-- What is wrong with one run of hello.lua on n ranks, as sentences, each
-- kind of fault once ({kind = text}); `ref` = {sums = {[seed] = checksum},
-- zeros = checksum}. It says what the script reported and why that is not
-- it - never a checksum the learner should have.
local function hello_faults(got, n, ref)
  local faults, kinds = {}, {}
  local function add(kind, text)
    if not kinds[kind] then kinds[kind] = true; faults[#faults + 1] = { kind = kind, text = text } end
  end
  local same, first = true, got[0] and got[0].checksum
  for r = 0, n - 1 do
    local g = got[r]
    if not g then
      same = false
      add("missing", L("rank %d reported nothing: every rank must call mgpu.result{...}", r))
    else
      if g.checksum ~= first then same = false end
      if g.rank ~= r then
        add("rank", L("rank %d reports rank %s: mgpu.rank is this rank's number, whatever GPU it runs on",
                                  r, tostring(g.rank)))
      end
      if g.world ~= n then
        add("world", L("rank %d reports world %s, but %d ranks ran: mgpu.world is the number of ranks "
                                   .. "(not of GPUs, nor the count of one run)", r, tostring(g.world), n))
      end
    end
  end
  -- a wrong rank seeds wrong too: then only zeros say more than the rank
  if same and n > 1 and first ~= nil and first ~= ref.zeros and not kinds.rank then
    add("same", L("every rank reports the same checksum: the seed must differ from rank to rank"))
  end
  for r = 0, n - 1 do
    local g = got[r]
    if g and g.checksum ~= ref.sums[r] then
      local seed
      for s, c in pairs(ref.sums) do if c == g.checksum then seed = s end end
      if g.checksum == ref.zeros then
        add("zeros", L("rank %d's checksum is the one of a tensor of zeros: x is still filled with a "
                                   .. "constant (TODO 2)", r))
      elseif kinds.rank then
        -- seeded with the wrong rank: the rank's fault says it already
      elseif seed then
        add("seed", L("rank %d's checksum is the one of a tensor filled with seed %d, not seed %d",
                                  r, seed, r))
      elseif not kinds.same then
        add("fill", L("rank %d's checksum is not the one of %d floats of kind \"random\" filled with "
                                  .. "seed %d", r, COUNT, r))
      end
    end
  end
  return faults
end


return {
  title    = "Welcome",
  summary  = "The shell, the backends (cuda, emulated nodes, sim), steps, checks and progress",
  backends = "cuda (1+ GPUs; 2 ranks as emulated nodes on one GPU) and sim (any preset)",
  ranks    = 2,
  steps = {
    {
      id = "shell", title = "Finding your way around the shell",
      text = "steps/01-shell.md",
      hints = { "Press ? at any time for the list of keys.",
                "1-5 switch the pane below the text; Tab cycles through them." },
    },
    {
      id = "backends", title = "Backends: cuda, emulated nodes, sim",
      text = "steps/02-backends.md",
      hints = { "The backend is named in the results pane's table 'This run' (3); the GPUs are the rows of the " ..
                "topology pane (1); whether ranks are emulated nodes follows from the backend and the number of " ..
                "GPUs (the step text says when).",
                "Answer with a in the shell (or --answer ID=VALUE headless): backend=cuda or sim, gpus=N, emulated=yes or no." },
      questions = {
        { id = "backend",  ask = "Which backend ran this step: cuda or sim?" },
        { id = "gpus",     ask = "How many GPUs does the machine have (the topology pane lists them)?" },
        { id = "emulated", ask = "Do this lab's 2 ranks run as emulated nodes (yes or no)?" },
      },
      run = function(lab)
        local b = lab.backend
        local topo = lab.topo()
        lab.table{
          title = L("This run"),
          columns = { L("what"), L("value") },
          rows = {
            { "backend", b.kind .. (b.simulated and " (SIMULATED)" or "") },
            { "machine", b.machine or L("this host") },
            -- not the GPU count nor whether ranks are emulated nodes (nor the
            -- backend's reason, which says both): the questions ask the
            -- learner to find and work those out
            { "ranks / launcher", b.ranks .. " / " .. b.launcher },
          },
        }
        lab.log(L("backend: %s", topo.banner or b.kind))
        return { backend = b, gpus = #(topo.gpus or {}) }
      end,
      check = function(lab, res)
        local b = lab.backend
        return {
          checks.equals{ value = lab.answer("backend"), expected = b.kind, what = L("backend"),
                         where = L("results pane (3), row 'backend'"), answer = true },
          checks.equals{ value = lab.answer("gpus"), expected = res and res.gpus, what = L("GPUs"),
                         where = L("topology pane (1): one row per GPU"), answer = true },
          checks.equals{ value = lab.answer("emulated"), expected = b.emulated, what = L("emulated nodes (yes/no)"),
                         where = L("the step text (when ranks are emulated nodes) and the topology pane (1)"), answer = true },
        }
      end,
    },
    {
      id = "hello", title = "Hands-on: every rank says who it is",
      text = "steps/03-hello.md",
      exercise = "hello.lua",
      hints = {
        "Every rank runs the same file. mgpu.rank is this rank's number (0, 1, ...), mgpu.world the number of ranks.",
        "TODO 2: a random fill takes a seed; the seed makes each rank's data different, and the same on every run, "
          .. "when it is a number each rank has of its own (docs/spmd.md: t:fill).",
        "The check rebuilds each rank's expected checksum by filling the same tensor with seed = rank itself.",
      },
      run = function(lab)
        local mine = lab.spmd(lab.exercise, { timeout = 30 })
        local n = lab.backend.ranks
        -- the same script on another rank count, every rank on one GPU (a
        -- what-if every learner has): a world of 2 written down, or the GPU
        -- taken for the rank, shows there
        local alt_n = n == 3 and 4 or 3
        local alt = lab.spmd(lab.exercise, { machine = "single-gpu", ranks = alt_n, timeout = 30 })
        -- The reference: one script fills a tensor with seed r for every
        -- seed r up to one past both runs' ranks (scripts/ref_checksums.lua).
        local seeds = math.max(n, alt_n) + 1
        local ref = lab.spmd("scripts/ref_checksums.lua", { ranks = 1, args = { tostring(COUNT), tostring(seeds) }, timeout = 30 })
        local sums, zeros = {}, nil
        local r0 = ref.ranks and ref.ranks[0] and ref.ranks[0].results and ref.ranks[0].results[1]
        if type(r0) == "table" and type(r0.checksums) == "table" then
          for s = 0, seeds - 1 do sums[s] = r0.checksums[s + 1] end
          zeros = r0.zeros
        end
        local rows, got = {}, rows_by_rank(mine, n)
        for r = 0, n - 1 do
          local g = got[r] or {}
          rows[#rows + 1] = { r, tostring(g.rank), tostring(g.world), tostring(g.checksum), tostring(sums[r]) }
        end
        lab.table{ title = L("hello.lua, one row per rank"),
                   columns = { L("rank"), L("reported rank"), L("reported world"), L("checksum"), L("expected checksum") }, rows = rows }
        return { run = mine, n = n, got = got, alt = alt, alt_n = alt_n, alt_got = rows_by_rank(alt, alt_n),
                 ref = { sums = sums, zeros = zeros }, ref_ok = ref.ok }
      end,
      check = function(lab, res)
        local runs = {
          { run = res.run, n = res.n, got = res.got, on = "", where = L("results pane (3), table 'hello.lua, one row per rank'") },
          { run = res.alt, n = res.alt_n, got = res.alt_got,
            on = L("on %d ranks sharing one GPU (the SIMULATED single-gpu): ", res.alt_n),
            where = L("your hello.lua; try it: mgpulab spmd hello.lua --ranks %d --backend sim --machine single-gpu", res.alt_n) },
        }
        local v, seen = {}, {}
        for _, x in ipairs(runs) do
          if not x.run.ok then
            local r = x.run.failed_rank or 0
            local e = x.run.ranks and x.run.ranks[r] and x.run.ranks[r].error
            return { ok = false, msg = L("%shello.lua did not finish on rank %d: %s", x.on, r, tostring(e or x.run.reason)),
                     saw = L("rank %d stopped with an error", r), wanted = L("every rank finishes its script"),
                     where = L("log pane (5): the error and its line number") }
          end
          local texts = {}
          for _, f in ipairs(hello_faults(x.got, x.n, res.ref)) do
            if not seen[f.kind] then seen[f.kind] = true; texts[#texts + 1] = f.text end
          end
          if #texts > 0 then
            v[#v + 1] = { ok = false, msg = x.on .. table.concat(texts, "; "), saw = texts[1],
              wanted = L("every rank reports mgpu.rank, mgpu.world and the checksum of its 1024 floats of kind "
                .. "\"random\" with seed = its rank"), where = x.where }
          end
        end
        if #v == 0 then
          return { ok = true, msg = L("every rank reports its rank, the world and the checksum of its own "
              .. "seed - on %d ranks here and on %d ranks sharing one GPU", res.n, res.alt_n),
            saw = L("the right row on every rank"), wanted = L("the right row on every rank"),
            where = L("results pane (3), table 'hello.lua, one row per rank'") }
        end
        return v
      end,
    },
    {
      id = "progress", title = "Verdicts, progress, hints and reset",
      text = "steps/04-progress.md",
    },
  },
}
