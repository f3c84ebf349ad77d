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
          title = "This run",
          columns = { "what", "value" },
          rows = {
            { "backend", b.kind .. (b.simulated and " (SIMULATED)" or "") },
            { "machine", b.machine or "this host" },
            -- not the GPU count nor whether ranks are emulated nodes (nor the
            -- backend's reason, which says both): the questions ask the
            -- learner to find and work those out
            { "ranks / launcher", b.ranks .. " / " .. b.launcher },
          },
        }
        lab.log("backend: " .. (topo.banner or b.kind))
        return { backend = b, gpus = #(topo.gpus or {}) }
      end,
      check = function(lab, res)
        local b = lab.backend
        return {
          checks.equals{ value = lab.answer("backend"), expected = b.kind, what = "backend",
                         where = "results pane (3), row 'backend'", answer = true },
          checks.equals{ value = lab.answer("gpus"), expected = res and res.gpus, what = "GPUs",
                         where = "topology pane (1): one row per GPU", answer = true },
          checks.equals{ value = lab.answer("emulated"), expected = b.emulated, what = "emulated nodes (yes/no)",
                         where = "the step text (when ranks are emulated nodes) and the topology pane (1)", answer = true },
        }
      end,
    },
    {
      id = "hello", title = "Hands-on: every rank says who it is",
      text = "steps/03-hello.md",
      exercise = "hello.lua",
      hints = {
        "Every rank runs the same file. mgpu.rank is this rank's number (0, 1, ...), mgpu.world the number of ranks.",
        "TODO 2: x:fill{kind = \"random\", seed = mgpu.rank} - the seed makes each rank's data different and reproducible.",
        "The check rebuilds each rank's expected checksum by filling the same tensor with seed = rank itself.",
      },
      run = function(lab)
        local mine = lab.spmd(lab.exercise, { timeout = 30 })
        local n = lab.backend.ranks
        -- The reference: one script fills a tensor with seed r for every rank r
        -- and reports its checksum (scripts/ref_checksums.lua).
        local ref = lab.spmd("scripts/ref_checksums.lua", { ranks = 1, args = { tostring(COUNT), tostring(n) }, timeout = 30 })
        local expected = {}
        local r0 = ref.ranks and ref.ranks[0] and ref.ranks[0].results and ref.ranks[0].results[1]
        if type(r0) == "table" and type(r0.checksums) == "table" then
          for r = 0, n - 1 do expected[r] = r0.checksums[r + 1] end
        end
        local rows, got = {}, rows_by_rank(mine, n)
        for r = 0, n - 1 do
          local g = got[r] or {}
          rows[#rows + 1] = { r, tostring(g.rank), tostring(g.world), tostring(g.checksum), tostring(expected[r]) }
        end
        lab.table{ title = "hello.lua, one row per rank",
                   columns = { "rank", "reported rank", "reported world", "checksum", "expected checksum" }, rows = rows }
        return { run = mine, n = n, got = got, expected = expected, ref_ok = ref.ok }
      end,
      check = function(lab, res)
        if not res.run.ok then
          local r = res.run.failed_rank or 0
          local e = res.run.ranks and res.run.ranks[r] and res.run.ranks[r].error
          return { ok = false, msg = "hello.lua did not finish on rank " .. r .. ": " .. tostring(e or res.run.reason),
                   saw = "rank " .. r .. " stopped with an error", wanted = "every rank finishes its script",
                   where = "log pane (5): the error and its line number" }
        end
        local v = {}
        for r = 0, res.n - 1 do
          local g = res.got[r]
          if not g then
            v[#v + 1] = checks.equals{ value = nil, expected = "a result row", what = "rank " .. r .. "'s mgpu.result",
                                       missing = "rank " .. r .. " reported nothing: call mgpu.result{...}",
                                       where = "results pane (3)" }
          else
            v[#v + 1] = checks.equals{ value = g.rank, expected = r, what = "rank " .. r .. " reports its rank",
                                       where = "results pane (3), column 'reported rank'" }
            v[#v + 1] = checks.equals{ value = g.world, expected = res.n, what = "rank " .. r .. " reports the world size",
                                       where = "results pane (3), column 'reported world'" }
            v[#v + 1] = checks.equals{ value = g.checksum, expected = res.expected[r],
                                       what = "rank " .. r .. "'s checksum of its tensor filled with seed " .. r,
                                       where = "results pane (3), columns 'checksum' and 'expected checksum'" }
          end
        end
        return checks.all(v)
      end,
    },
    {
      id = "progress", title = "Verdicts, progress, hints and reset",
      text = "steps/04-progress.md",
    },
  },
}
