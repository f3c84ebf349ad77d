-- tests/data/labs/02-engine/lab.lua - the `lab` calls that run workers.
return {
  title = "Engine", summary = "bench, topo, copy, spmd, peak through rank workers", ranks = 2,
  steps = {
    {
      id = "bench", title = "A small all_reduce sweep",
      run = function(lab) return lab.bench("all_reduce", { b = "1K", e = "64K", f = 4 }) end,
      check = function(lab, r)
        lab.record("rows", #r.rows)
        return { checks.equals{ value = #r.rows, expected = 4, what = "rows" },
                 checks.truthy{ value = r.rows[4].out_of_place.bus_bw > 0, what = "busbw > 0" },
                 checks.equals{ value = r.report.ok, expected = true, what = "report.ok" } }
      end,
    },
    {
      id = "topo", title = "Topology and peaks",
      run = function(lab)
        local t = lab.topo()
        local p, src = lab.peak("NV18")
        local none, why = lab.peak("warp-drive")
        lab.table{ title = "peaks", columns = { "link", "GB/s" }, rows = { { "NV18", p } } }
        return { gpus = #t.gpus, xml = lab.topo_xml(), peak = p, src = src, none = none, why = why }
      end,
      check = function(lab, r)
        return { checks.equals{ value = r.gpus, expected = lab.backend.gpus, what = "GPUs" },
                 checks.truthy{ value = r.xml:find("<system"), what = "the XML" },
                 checks.truthy{ value = r.peak and r.peak > 0 and r.src ~= "", what = "NV18 peak" },
                 checks.truthy{ value = r.none == nil and r.why:find("not a link name"), what = "unknown link refused" } }
      end,
    },
    {
      id = "spmd", title = "An SPMD script on 2 ranks",
      run = function(lab) return lab.spmd("scripts/ranks.lua") end,
      check = function(lab, r)
        return { checks.equals{ value = r.ok, expected = true, what = "ok" },
                 checks.equals{ value = r.ranks[1].results[1].rank, expected = 1, what = "rank 1's row" },
                 checks.equals{ value = r.ranks[0].logs[1], expected = "hello from 0", what = "rank 0's log" } }
      end,
    },
    {
      id = "copy", title = "One copy testcase",
      run = function(lab) return lab.copy("device_local_copy", { size = "1M" }) end,
      check = function(lab, r)
        return checks.equals{ value = r.testcases[1].name, expected = "device_local_copy", what = "testcase" }
      end,
    },
  },
}
