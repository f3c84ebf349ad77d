-- labs/09-pitfalls/lab.lua - the note's pitfall list, one step each:
-- reproduced, seen (timeline, numbers, log) and fixed, each linking to the
-- lab where it first appeared.

local function f1(x) return type(x) == "number" and string.format("%.1f", x) or "-" end
local function f3(x) return type(x) == "number" and string.format("%.3f", x) or "-" end

-- The first result row of rank r of a lab.spmd result, or nil.
local function row(res, r)
  local rk = res and res.ranks and res.ranks[r or 0]
  return rk and rk.results and rk.results[1] or nil
end

-- A failed verdict for a script that did not finish.
local function broken(res, what)
  local r = res and res.failed_rank or 0
  local e = res and res.ranks and res.ranks[r] and res.ranks[r].error
  return { ok = false, msg = L("%s did not finish on rank %d: %s", what, r, tostring(e or (res and res.reason))),
           saw = L("an error"), wanted = L("the script finishes"), where = L("log pane (5)") }
end

-- GPUs of host 0 (the ranks of the intra-node steps).
local function node_gpus(lab)
  local n = 0
  for _, g in ipairs(lab.topo().gpus or {}) do if g.host == 0 then n = n + 1 end end
  return math.max(n, 1)
end

local function largest(r)
  local best
  for _, x in ipairs((r and r.rows) or {}) do
    if type(x.out_of_place) == "table" and (not best or x.size > best.size) then best = x end
  end
  return best
end

local function link_of(nccl, from, to)
  for _, l in ipairs((nccl and nccl.links) or {}) do
    if l.from == from and l.to == to then return l end
  end
  return nil
end

-- The measured P2P on/off ratio is the answer to a prediction: the table
-- shows it once the learner has predicted, beside the prediction (which the
-- progress keeps too).
local function ratio_cell(lab, ratio)
  local p = tonumber(lab.answer("ratio") or "")
  if not ratio then return "-" end
  if not p then return L("predict it first (question 'ratio'), then run the step again") end
  lab.record("p2p_predicted", p)
  return L("%sx measured, %sx predicted (the note: 10x)", f1(ratio), f1(p))
end

return {
  title    = "The pitfalls clinic",
  summary  = "Every pitfall of the note reproduced, seen and fixed: mismatch, stale data, the legacy default stream, " ..
             "hidden host syncs, P2P disabled, fragmentation, IPC handle lifetime",
  backends = "sim (any preset; one-GPU machines say what they cannot show) and cuda (1+ GPUs)",
  ranks    = 2,
  steps = {
    {
      id = "mismatch", title = "Collective mismatch: a hang, caught (lab 8)",
      text = "steps/01-mismatch.md",
      hints = { "The analysis line names what each rank entered: the same all_reduce with two counts.",
                "Lab 8 (collective-mismatch deadlock) takes the watchdog and the flight recorder apart." },
      run = function(lab)
        lab.progress(0, L("mismatch.lua bug (the watchdog ends it after 3 s)"))
        local bug = lab.spmd("scripts/mismatch.lua", { ranks = 2, timeout = 3, args = { "bug" } })
        lab.progress(0.4, L("mismatch.lua bug, fingerprint check on"))
        local fp = lab.spmd("scripts/mismatch.lua", { ranks = 2, timeout = 3, args = { "bug" }, fingerprint = true })
        lab.progress(0.7, "mismatch.lua fix")
        local fix = lab.spmd("scripts/mismatch.lua", { ranks = 2, timeout = 30, args = { "fix" } })
        lab.table{ title = "collective mismatch", columns = { "run", L("outcome") },
                   rows = { { "bug", (bug.ok and L("finished?!") or tostring(bug.reason)) .. " - " .. tostring(bug.analysis) },
                            { "bug + MGPU_FINGERPRINT=1", fp.ok and L("finished?!") or tostring(fp.reason) },
                            { "fix", fix.ok and L("finished in %s s", f1(fix.wall_s)) or tostring(fix.reason) } } }
        return { bug = bug, fix = fix }
      end,
      check = function(lab, out)
        if not out.fix.ok then return broken(out.fix, "mismatch.lua fix") end
        return checks.all{
          checks.hang_caught{ report = out.bug, within = 10, where = L("results pane (3), row bug") },
          checks.equals{ value = row(out.fix, 0) and row(out.fix, 0).element0, expected = 2,
                         what = L("element 0 after the fixed all_reduce of 1s on 2 ranks"), where = L("results pane (3)") },
        }
      end,
    },
    {
      id = "stale", title = "Stale data across GPUs: no event (lab 3)",
      text = "steps/02-stale.md",
      hints = { "The fix is the note's e0.record() on the producer's stream and e0.wait() on the consumer's.",
                "The log pane's RACE line names both sides: the write and the read that nothing orders after it." },
      run = function(lab)
        -- the bug run races on purpose: its race is the lesson, not a failure
        local bug = lab.spmd("scripts/stale.lua", { ranks = 1, args = { "bug" }, races = "expected" })
        local fix = lab.spmd("scripts/stale.lua", { ranks = 1, args = { "fix" } })
        local b, f = row(bug, 0), row(fix, 0)
        local function r(name, x)
          return { name, x and tostring(x.seen == x.truth) or "-", x and f3(x.gap_ms) or "-" }
        end
        lab.table{ title = L("GPU%s -> GPU%s: copy after 8 fills", tostring(b and b.from), tostring(b and b.to)),
                   columns = { "run", L("checksum right"), L("copy start - fills end (ms)") },
                   rows = { r(L("no event (bug)"), b), r(L("event (fix)"), f) } }
        return { bug = bug, fix = fix }
      end,
      check = function(lab, out)
        local b, f = row(out.bug, 0), row(out.fix, 0)
        if not out.bug.ok or not b then return broken(out.bug, "stale.lua bug") end
        if not out.fix.ok or not f then return broken(out.fix, "stale.lua fix") end
        return checks.all{
          checks.equals{ value = (b.seen ~= b.truth or (b.gap_ms or 0) < 0) and L("seen") or L("not seen"), expected = L("seen"),
                         what = L("the bug reproduced (a wrong checksum, or the copy starting before the fills ended)"),
                         where = L("results pane (3), row 'no event'; timeline pane (4)") },
          checks.equals{ value = #(out.bug.races or {}) > 0 and L("named") or L("not named"), expected = L("named"),
                         what = L("the race detector on the bug run (the copy's read of x, not ordered after the fills)"),
                         where = L("log pane (5): the RACE line of the run without the event") },
          checks.no_race{ report = out.fix, what = L("the run with the event"), where = L("log pane (5)") },
          checks.equals{ value = f.seen, expected = f.truth, what = L("checksum GPU1 read with the event"),
                         where = L("results pane (3), row 'event'") },
          { ok = (f.gap_ms or -1) >= -1e-6, msg = L("with the event the copy starts %s ms after the fills end",
              f3(f.gap_ms)), saw = f3(f.gap_ms) .. " ms", wanted = ">= 0 ms", where = L("timeline pane (4)") },
        }
      end,
    },
    {
      id = "default_stream", title = "Exercise: the legacy default stream serialises",
      text = "steps/03-default-stream.md",
      exercise = "streams.lua",
      hints = { "mgpu.stream() makes a non-blocking stream; comm:stream() is the communicator's own.",
                "overlap = the time both streams were busy at once / the shorter one's busy time: 0 = serialised, 1 = fully hidden." },
      run = function(lab)
        local before = lab.spmd("exercises/streams.lua", { ranks = 2 })
        local after = lab.spmd(lab.exercise, { ranks = 2 })
        local b, a = row(before, 0), row(after, 0)
        local function r(name, x)
          return { name, x and f3(x.t_compute_ms) or "-", x and f3(x.t_comm_ms) or "-", x and f3(x.t_both_ms) or "-",
                   x and string.format("%.0f %%", (x.overlap or 0) * 100) or "-" }
        end
        lab.table{ title = L("compute and all_reduce, 4 steps (ms); overlap from events on both streams"),
                   columns = { L("version"), "compute", "comm", L("both"), "overlap" },
                   rows = { r(L("legacy default stream (before)"), b), r(L("yours"), a) } }
        if a and a.overlap then lab.record("overlap_after", a.overlap) end
        return { before = before, after = after }
      end,
      check = function(lab, out)
        local a = row(out.after, 0)
        if not out.after.ok or not a then return broken(out.after, L("your streams.lua")) end
        -- busy-at-once over the shorter busy time: a fraction by construction;
        -- anything else is a broken measurement, not a result
        if type(a.overlap) ~= "number" or a.overlap < 0 or a.overlap > 1 then
          return { ok = false, msg = L("the overlap measurement gave %s, outside [0, 1]: "
                   .. "streams.lua's timing part was changed (only the two stream lines are the exercise)", tostring(a.overlap)),
                   saw = tostring(a.overlap), wanted = L("a fraction in [0, 1]"), where = L("your streams.lua, below the TODO lines") }
        end
        return checks.all{
          checks.equals{ value = a.legacy and "legacy default" or "non-blocking", expected = "non-blocking",
                         what = L("the streams your compute and communication use"), where = L("your streams.lua") },
          checks.bandwidth{ value = a.overlap * 100, peak = 100, fraction = 0.5, unit = "%",
                            what = L("overlap of compute and all_reduce"), peak_what = L("full overlap"),
                            where = L("results pane (3); timeline pane (4): the two streams side by side") },
        }
      end,
    },
    {
      id = "host_sync", title = "Exercise: a hidden host synchronisation in the loop",
      text = "steps/04-host-sync.md",
      exercise = "loop.lua",
      hints = { "g:get(0) is a copy and a wait: the host stops until the all_reduce is done.",
                "Read the losses after the loop: one wait for the last all_reduce, then the gets." },
      run = function(lab)
        local before = lab.spmd("exercises/loop.lua", { ranks = 2 })
        local b = row(before, 0)
        -- the same compute per step in both runs: the original loop measured it
        local after = lab.spmd(lab.exercise, { ranks = 2, args = { b and b.passes and tostring(b.passes) or nil } })
        local a = row(after, 0)
        lab.table{ title = L("training loop, 6 steps"), columns = { L("version"), L("step time (ms)"), "losses" },
                   rows = { { L("loss read every step (before)"), b and f3(b.step_ms) or "-", b and b.losses or "-" },
                            { L("yours"), a and f3(a.step_ms) or "-", a and a.losses or "-" } } }
        return { before = before, after = after }
      end,
      check = function(lab, out)
        local b, a = row(out.before, 0), row(out.after, 0)
        if not out.before.ok or not b then return broken(out.before, L("the lab's loop.lua")) end
        if not out.after.ok or not a then return broken(out.after, L("your loop.lua")) end
        -- A synchronize the loop makes every step is the hidden sync again,
        -- whatever the timing says (on emulated nodes the sockets' time
        -- swamps the difference): the race detector lists the script's own
        -- synchronizes with their lines and counts.
        local rk = out.after.ranks and out.after.ranks[0]
        for _, sy in ipairs(rk and rk.race and rk.race.syncs or {}) do
          if (sy.count or 0) >= 6 then
            return { ok = false, msg = L("the host still waits in every step: %s at %s ran %d times "
                                         .. "- the reads after the loop need one wait, not one a step",
                                         sy.what, sy.site, sy.count),
                     saw = L("%s at %s, %d times", sy.what, sy.site, sy.count),
                     wanted = L("no wait of the host inside the loop"), where = L("your loop.lua, inside the loop") }
          end
        end
        return checks.all{
          checks.equals{ value = a.losses, expected = b.losses, what = L("the losses your loop reads"),
                         where = L("results pane (3), column losses") },
          checks.bandwidth{ value = b.step_ms, peak = a.step_ms, fraction = 1.15, unit = "ms",
                            what = L("step time before the fix"), peak_what = L("your step time (the fix should save >= 15 %%)"),
                            where = L("results pane (3); timeline pane (4): the gap before each step's compute") },
        }
      end,
    },
    {
      id = "p2p", title = "P2P disabled: NCCL through host memory",
      text = "steps/05-p2p.md",
      hints = { "Predict from the links, before the table shows it: with P2P a chunk goes GPU to GPU over the link "
                .. "the topology pane names; without it every chunk is copied into host memory and out again over "
                .. "each GPU's PCIe link (lab 1, lab 3's pinned copies).",
                "The transport is what the 'off' run's log printed after 'via' for rank 0 -> rank 1." },
      questions = { { id = "ratio", ask = "Predict, before the table shows it: how many times faster is all_reduce "
                                          .. "with P2P than without on this machine (within 50 %)?" },
                    { id = "transport", ask = "Which transport did NCCL use between rank 0 and rank 1 with P2P disabled?" } },
      run = function(lab)
        local n = math.max(2, node_gpus(lab))
        local sim = lab.backend.simulated
        local base = { b = "64M", e = "64M", ranks = n, env = { NCCL_DEBUG = "INFO" } }
        if not sim then base.n, base.w = 10, 2 end
        local off = {}
        for k, v in pairs(base) do off[k] = v end
        if sim then off.fault = "p2p-disabled" else off.env = { NCCL_DEBUG = "INFO", NCCL_P2P_DISABLE = "1" } end
        lab.progress(0, "P2P on")
        local on_r = lab.bench("all_reduce", base)
        lab.progress(0.5, sim and "--fault p2p-disabled" or "NCCL_P2P_DISABLE=1")
        local off_r = lab.bench("all_reduce", off)
        local on, offb = largest(on_r), largest(off_r)
        local out = { n = n, on = on and on.out_of_place.bus_bw, off = offb and offb.out_of_place.bus_bw,
                      l_on = link_of(on_r.nccl, 0, 1), l_off = link_of(off_r.nccl, 0, 1),
                      gpus = node_gpus(lab) }
        local topo = lab.topo()
        local m = topo.matrix and topo.matrix.rows
        out.link01 = out.gpus >= 2 and m and m[1] and m[1][2] or "none"
        if out.on and out.off and out.off > 0 then out.ratio = out.on / out.off end
        lab.table{ title = L("P2P on and off: all_reduce 64 MiB, %d ranks (topology GPU0-GPU1: %s)", n, out.link01),
                   columns = { "", "busbw (GB/s)", "rank 0 -> 1 via" },
                   rows = { { "P2P on", f1(out.on), out.l_on and out.l_on.detail or "-" },
                            { "P2P off", f1(out.off), out.l_off and out.l_off.detail or "-" },
                            { L("ratio"), ratio_cell(lab, out.ratio), "" } } }
        if out.ratio then lab.record("p2p_ratio", out.ratio) end
        return out
      end,
      check = function(lab, out)
        if out.gpus < 2 then
          return { ok = false, msg = L("one GPU: its two ranks share it, so there is no peer to reach by P2P or SHM and " ..
                   "nothing to switch off. Run this step on a machine with 2+ GPUs (sim: --machine dgx-h100)"),
                   saw = "1 GPU", wanted = L("2+ GPUs in a node"), where = L("topology pane (1)"), unavailable = true }
        end
        local t = out.l_off and out.l_off.transport
        return {
          checks.close{ value = lab.answer("ratio"), expected = out.ratio, rtol = 0.5, answer = true,
                        what = L("your prediction of the ratio P2P on / off"),
                        where = L("topology pane (1): the GPU0-GPU1 link and each GPU's PCIe link") },
          checks.equals{ value = lab.answer("transport"), expected = t and { any = { t, t:match("^([^/]+)") } } or "none",
                         answer = true, missing = L("press a to answer"), what = L("the transport rank 0 -> 1 without P2P"),
                         where = L("results pane (3), column 'via'; log pane (5)") },
        }
      end,
    },
    {
      id = "fragmentation", title = "Memory fragmentation and the caching allocator",
      text = "steps/06-fragmentation.md",
      hints = { "Both numbers are in the first row of the table 'fragmentation', in MiB.",
                "reserved but unallocated = memory the allocator holds free; the largest free block is what one request can get." },
      questions = { { id = "free_mib", ask = "How many MiB did the allocator hold free when 12 MiB failed?" },
                    { id = "largest_mib", ask = "How large (MiB) was the largest free block then?" } },
      run = function(lab)
        local runs = {
          { L("every other freed"), { "interleaved" }, nil },
          { L("every other freed, expandable_segments:True"), { "interleaved" }, "expandable_segments:True" },
          { L("first ten freed (another order)"), { "grouped" }, nil },
        }
        local out, rows = {}, {}
        for i, r in ipairs(runs) do
          lab.progress((i - 1) / #runs, r[1])
          local res = lab.spmd("scripts/frag.lua", { ranks = 1, args = r[2], env = r[3] and { MGPU_ALLOC_CONF = r[3] } or nil })
          local x = row(res, 0)
          out[i] = { res = res, row = x }
          rows[#rows + 1] = { r[1], x and (x.ok and L("allocated") or "OUT OF MEMORY") or L("error: %s", tostring(res.reason)),
                              x and f1(x.reserved_unallocated_mib) or "-", x and f1(x.largest_free_block_mib) or "-" }
          if x and not x.ok then lab.log(L("12 MiB after '%s': %s", r[1], tostring(x.error))) end
        end
        lab.table{ title = L("fragmentation: 12 MiB after freeing 10 of 20 tensors of 5 MiB"),
                   columns = { "run", "12 MiB", L("reserved, unallocated (MiB)"), L("largest free block (MiB)") }, rows = rows }
        return out
      end,
      check = function(lab, out)
        local bug, exp, ord = out[1].row, out[2].row, out[3].row
        if not bug then return broken(out[1].res, "frag.lua") end
        return checks.all{
          checks.equals{ value = bug.ok and L("allocated") or ((tostring(bug.error):find("largest free block", 1, true)) and
                         L("out of memory, largest free block named") or L("failed otherwise")),
                         expected = L("out of memory, largest free block named"),
                         what = L("12 MiB after freeing every other tensor"), where = L("log pane (5): the OOM message") },
          checks.equals{ value = exp and exp.ok, expected = true, what = L("the same with expandable_segments:True"),
                         where = L("results pane (3), row 2") },
          checks.equals{ value = ord and ord.ok, expected = true, what = L("the same with the first ten freed"),
                         where = L("results pane (3), row 3") },
          checks.close{ value = lab.answer("free_mib"), expected = bug.reserved_unallocated_mib, rtol = 0.02,
                        answer = true, missing = L("press a to answer"), what = L("reserved but unallocated (MiB)"), where = L("results pane (3), row 1") },
          checks.close{ value = lab.answer("largest_mib"), expected = bug.largest_free_block_mib, rtol = 0.02,
                        answer = true, missing = L("press a to answer"), what = L("largest free block (MiB)"), where = L("results pane (3), row 1") },
        }
      end,
    },
    {
      id = "ipc", title = "IPC handle lifetime (lab 3)",
      text = "steps/07-ipc.md",
      hints = { "The order that works: importers ipc_close, a barrier, then the exporter frees." },
      run = function(lab)
        local bug = lab.spmd("scripts/ipc_lifetime.lua", { ranks = 2, args = { "bug" }, timeout = 60 })
        local fix = lab.spmd("scripts/ipc_lifetime.lua", { ranks = 2, args = { "fix" }, timeout = 60 })
        local b, f = row(bug, 1), row(fix, 1)
        local function what(x)
          if not x then return "-" end
          if not x.opened then return L("open refused: %s", tostring(x.error)) end
          if x.read_ok == false then return L("read refused: %s", tostring(x.error)) end
          return x.seen == x.want and L("read the owner's data") or L("read OTHER data, no error")
        end
        lab.table{ title = L("rank 1 maps rank 0's buffer"), columns = { "run", L("what rank 1 got") },
                   rows = { { L("freed before rank 1 was done (bug)"), what(b) }, { L("close, barrier, free (fix)"), what(f) } } }
        return { bug = bug, fix = fix }
      end,
      check = function(lab, out)
        local b, f = row(out.bug, 1), row(out.fix, 1)
        if not out.fix.ok or not f then return broken(out.fix, "ipc_lifetime.lua fix") end
        local v = { checks.equals{ value = f.seen, expected = f.want, what = L("checksum rank 1 read through the handle (fix)"),
                                   where = L("results pane (3), row fix") } }
        if lab.backend.simulated then
          v[#v + 1] = checks.equals{ value = b and (not b.opened or b.read_ok == false) and L("refused") or L("not caught"),
                                     expected = L("refused"), what = L("the SIMULATED machine refuses the dangling handle"),
                                     where = L("results pane (3), row bug") }
        end
        return checks.all(v)
      end,
    },
  },
}
