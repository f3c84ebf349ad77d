-- tests/data/labs/machine-cases/01-whatif/lab.lua - lab.spmd{machine = PRESET}
-- and lab.topo{machine = PRESET}: a what-if on a sim preset, whatever machine
-- the lab runs on (tests/cli/lab_spmd_machine.sh runs it on single-gpu), and
-- an unknown preset refused by name.
local function distinct_devices(res)
  local seen, n = {}, 0
  for r = 0, res.ranks and #res.ranks or -1 do
    local row = res.ranks[r] and res.ranks[r].results[1]
    if row and not seen[row.device] then seen[row.device] = true; n = n + 1 end
  end
  return n
end

return {
  title = "What-if machines", summary = "lab.spmd and lab.topo on a named sim preset", ranks = 2,
  steps = {
    {
      id = "own", title = "The run's own machine",
      run = function(lab)
        local res = lab.spmd("scripts/where.lua")
        lab.log(string.format("own machine: %s, simulated %s, %d GPU(s), what-if %s", tostring(res.machine),
                              tostring(res.simulated), res.gpus, tostring(res.whatif)))
        return { res = res, topo = lab.topo() }
      end,
      check = function(lab, out)
        local row = out.res.ranks[1].results[1]
        return { checks.equals{ value = out.res.ok, expected = true, what = "ok" },
                 checks.equals{ value = out.res.whatif, expected = false, what = "whatif" },
                 checks.equals{ value = out.res.machine, expected = lab.backend.machine, what = "machine" },
                 checks.equals{ value = out.res.gpus, expected = lab.backend.gpus, what = "GPUs" },
                 checks.equals{ value = row.device_count, expected = lab.backend.gpus, what = "devices a rank sees" },
                 checks.equals{ value = #out.topo.gpus, expected = lab.backend.gpus, what = "lab.topo()'s GPUs" } }
      end,
    },
    {
      id = "whatif", title = "8 ranks on a SIMULATED dgx-h100",
      run = function(lab)
        local res = lab.spmd("scripts/where.lua", { ranks = 8, machine = "dgx-h100" })
        lab.log(string.format("what-if: %s, simulated %s, %d GPU(s), what-if %s; this machine: %s, %d GPU(s)",
                              tostring(res.machine), tostring(res.simulated), res.gpus, tostring(res.whatif),
                              tostring(lab.backend.machine), lab.backend.gpus))
        return { res = res, topo = lab.topo{ machine = "dgx-h100" }, own = lab.topo(),
                 xml = lab.topo_xml{ machine = "2x-dgx-h100" }, xml2 = lab.topo_xml{ machine = "2x-dgx-h100" } }
      end,
      check = function(lab, out)
        local res = out.res
        local row = res.ranks[7] and res.ranks[7].results[1] or {}
        return { checks.equals{ value = res.ok, expected = true, what = "ok" },
                 checks.equals{ value = res.machine, expected = "dgx-h100", what = "machine" },
                 checks.equals{ value = res.simulated, expected = true, what = "simulated" },
                 checks.equals{ value = res.whatif, expected = true, what = "whatif" },
                 checks.equals{ value = res.gpus, expected = 8, what = "the what-if's GPUs" },
                 checks.equals{ value = row.world, expected = 8, what = "ranks (the call's, not the lab's 2)" },
                 checks.equals{ value = row.simulated, expected = true, what = "rank 7 on the sim" },
                 checks.equals{ value = row.device_count, expected = 8, what = "devices rank 7 sees" },
                 checks.equals{ value = distinct_devices(res), expected = 8, what = "a GPU per rank" },
                 checks.equals{ value = row.mem, expected = (out.topo.gpus[8] or {}).mem_bytes,
                                what = "rank 7's GPU memory, as the what-if's topology has it" },
                 checks.truthy{ value = (out.topo.gpus[1] or {}).name:find("H100", 1, true), what = "an H100" },
                 checks.equals{ value = #out.topo.gpus, expected = 8, what = "lab.topo{machine = 'dgx-h100'}'s GPUs" },
                 checks.equals{ value = #out.own.gpus, expected = lab.backend.gpus, what = "lab.topo() after it" },
                 checks.truthy{ value = out.xml:find("<mgpulab-cluster", 1, true), what = "lab.topo_xml{machine = '2x-dgx-h100'}: two hosts" },
                 checks.equals{ value = out.xml2, expected = out.xml, what = "lab.topo_xml of 2x-dgx-h100, cached" } }
      end,
    },
    {
      id = "unknown", title = "An unknown preset",
      run = function(lab)
        local ok, err = pcall(lab.spmd, "scripts/where.lua", { machine = "dgx-h999" })
        local tok, terr = pcall(lab.topo, { machine = "my-cluster.xml" })
        lab.log("lab.spmd: " .. tostring(err))
        lab.log("lab.topo: " .. tostring(terr))
        return { ok = ok, err = tostring(err), tok = tok, terr = tostring(terr) }
      end,
      check = function(lab, out)
        return { checks.equals{ value = out.ok, expected = false, what = "lab.spmd on dgx-h999 refused" },
                 checks.truthy{ value = out.err:find("opts.machine 'dgx-h999' is not a sim preset", 1, true)
                                        and out.err:find("2x-dgx-h100", 1, true), what = "the error names the presets" },
                 checks.equals{ value = out.tok, expected = false, what = "lab.topo on a file refused" },
                 checks.truthy{ value = out.terr:find("is not a sim preset", 1, true), what = "lab.topo's error" } }
      end,
    },
  },
}
