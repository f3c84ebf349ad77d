-- labs/03-p2p/lab.lua - the note's practice 3 (cudaMemcpyPeerAsync GPU0 ->
-- GPU1) and its parts on streams/events, UVA and IPC, as SPMD scripts.

local function f1(x) return type(x) == "number" and string.format("%.1f", x) or tostring(x) end

-- The first result row of rank r of an lab.spmd result, or nil.
local function row(res, r)
  local rk = res and res.ranks and res.ranks[r or 0]
  return rk and rk.results and rk.results[1] or nil
end

-- A failed verdict for a script that did not finish.
local function broken(res, what)
  local r = res and res.failed_rank or 0
  local e = res and res.ranks and res.ranks[r] and res.ranks[r].error
  return { ok = false, msg = what .. " did not finish on rank " .. r .. ": " .. tostring(e or (res and res.reason)),
           saw = "an error", wanted = "the script finishes", where = "log pane (5)" }
end

-- One cell (0-based row, col) of a matrix of a testcase in a lab.copy result.
local function copy_cell(doc, testcase, suffix, r, c)
  for _, tc in ipairs((doc and doc.testcases) or {}) do
    if tc.name == testcase then
      for _, m in ipairs(tc.matrices or {}) do
        if suffix == nil or tostring(m.key):sub(-#suffix) == suffix then
          local rowv = m.values and m.values[r + 1]
          return rowv and rowv[c + 1], tc
        end
      end
      return nil, tc
    end
  end
  return nil
end

local function two_gpus(lab) return (lab.backend.gpus or 1) >= 2 end

return {
  title    = "P2P memcpy, streams, events",
  summary  = "cudaMemcpyPeerAsync with peer access on/off, CE vs SM, bidirectional copies, events, UVA, CUDA IPC",
  backends = "cuda (2+ GPUs for peer copies; with 1 GPU: D2D and pinned vs pageable, IPC between 2 ranks on one GPU) and sim",
  ranks    = 2,
  steps = {
    {
      id = "peer", title = "GPU0 -> GPU1: peer access on and off, CE vs SM",
      text = "steps/01-peer.md",
      hints = {
        "Compare the two copy-engine numbers: the copy with peer access on and the same copy staged through host memory.",
        "speedup = (peer on, CE) / (peer off, CE); with one GPU: H2D pinned / H2D pageable.",
        "If peer access is impossible here, the topology (lab 1, step 3) says why: SYS path or P2P disabled.",
      },
      questions = { { id = "speedup", ask = "How many times faster is the fast copy than the slow one (work it out from the table)?" } },
      run = function(lab)
        local res = lab.spmd("scripts/copies.lua", { ranks = 1, args = { lab.backend.simulated and "67108864" or "268435456" } })
        local r = row(res, 0)
        if r and r.mode == "peer" then
          lab.table{ title = string.format("GPU%d -> GPU%d, %d MiB (GB/s)", r.from, r.to, (r.bytes or 0) // 1048576),
                     columns = { "peer access", "copy engine (CE)", "SM copy kernel" },
                     rows = { { "off", f1(r.off_ce), r.off_sm_refused and "refused" or "ran" },
                              { "on", r.can_access and f1(r.on_ce) or "impossible", r.can_access and f1(r.on_sm) or "-" } } }
          if r.on_ce then lab.record("p2p_gbs", r.on_ce) end
          lab.record("staged_gbs", r.off_ce)
        elseif r then
          lab.table{ title = string.format("one GPU, %d MiB (GB/s)", (r.bytes or 0) // 1048576),
                     columns = { "copy", "pinned host", "pageable host" },
                     rows = { { "host -> device", f1(r.h2d_pinned), f1(r.h2d_pageable) },
                              { "device -> host", f1(r.d2h_pinned), f1(r.d2h_pageable) },
                              { "device -> device (local)", f1(r.d2d), "" } } }
          lab.record("h2d_pinned_gbs", r.h2d_pinned)
          lab.record("h2d_pageable_gbs", r.h2d_pageable)
        end
        return res
      end,
      check = function(lab, res)
        local r = row(res, 0)
        if not res.ok or not r then return broken(res, "copies.lua") end
        if r.mode == "single" then
          return {
            checks.bandwidth{ value = r.h2d_pinned, peak = r.h2d_pageable, fraction = 1.5, what = "H2D from pinned memory",
              peak_what = "H2D from pageable memory (one GPU: no peer to copy to)",
              where = "results pane (3), table 'one GPU'" },
            checks.close{ value = lab.answer("speedup"), expected = r.h2d_pinned / r.h2d_pageable, rtol = 0.25,
              what = "your speedup pinned / pageable", answer = true, where = "results pane (3), row host -> device" },
          }
        end
        if not r.can_access then
          return { ok = false, msg = string.format("GPU%d cannot access GPU%d's memory (cudaDeviceCanAccessPeer = 0): every "
                     .. "copy is staged through host memory at %s GB/s. The topology says why: the path is SYS (across "
                     .. "sockets) or P2P is disabled (ACS/IOMMU, --fault p2p-disabled) - the note's topology mismatch.",
                     r.from, r.to, f1(r.off_ce)),
                   saw = "peer access impossible, " .. f1(r.off_ce) .. " GB/s staged", wanted = "peer access between GPU0 and GPU1",
                   where = "lab 1, step 3: the peer-access matrix" }
        end
        return {
          checks.bandwidth{ value = r.on_ce, peak = r.off_ce, fraction = 2, what = "CE copy with peer access on",
            peak_what = "the same copy with peer access off (staged through host memory)",
            where = "results pane (3), column CE" },
          checks.equals{ value = r.off_sm_refused, expected = true, what = "an SM copy kernel with peer access off is refused",
            where = "results pane (3), column SM copy kernel" },
          checks.close{ value = lab.answer("speedup"), expected = r.on_ce / r.off_ce, rtol = 0.25,
            what = "your speedup on / off", answer = true, where = "results pane (3), column CE" },
        }
      end,
    },
    {
      id = "bidir", title = "One direction or both at once",
      text = "steps/02-bidir.md",
      hints = { "NVLink and PCIe are full duplex: each direction has its own lanes.",
                "The bidirectional testcase's Total matrix is the sum of both directions." },
      run = function(lab)
        local opts = lab.backend.simulated and { size = "4M", copies = 2, samples = 1 } or { size = "256M", copies = 8, samples = 3 }
        local out = { two = two_gpus(lab) }
        if out.two then
          lab.progress(0, "device_to_device_memcpy_write_ce")
          local uni = lab.copy("device_to_device_memcpy_write_ce", opts)
          lab.progress(0.5, "device_to_device_bidirectional_memcpy_write_ce")
          local bi = lab.copy("device_to_device_bidirectional_memcpy_write_ce", opts)
          out.uni = copy_cell(uni, "device_to_device_memcpy_write_ce", nil, 0, 1)
          out.bi = copy_cell(bi, "device_to_device_bidirectional_memcpy_write_ce", "_total", 0, 1)
          out.what_uni, out.what_bi = "GPU0 -> GPU1 alone", "GPU0 <-> GPU1 both directions (total)"
        else
          lab.progress(0, "host_to_device_memcpy_ce")
          local uni = lab.copy("host_to_device_memcpy_ce", opts)
          lab.progress(0.5, "host_to_device_bidirectional_memcpy_ce")
          local bi = lab.copy("host_to_device_bidirectional_memcpy_ce", opts)
          out.uni = copy_cell(uni, "host_to_device_memcpy_ce", nil, 0, 0)
          out.bi = copy_cell(bi, "host_to_device_bidirectional_memcpy_ce", nil, 0, 0)
          out.what_uni, out.what_bi = "H2D alone", "H2D while D2H runs"
        end
        lab.table{ title = "uni- vs bidirectional (nvbandwidth testcases, GB/s)", columns = { "copy", "GB/s" },
                   rows = { { out.what_uni, f1(out.uni) }, { out.what_bi, f1(out.bi) } } }
        return out
      end,
      check = function(lab, out)
        if out.two then
          return checks.bandwidth{ value = out.bi, peak = out.uni, fraction = 1.5, what = "both directions at once (total)",
            peak_what = "one direction alone: a full-duplex link carries both", where = "results pane (3)" }
        end
        -- 0.6, not 0.8: an H200 on PCIe Gen5 kept 79 % (host memory and DMA
        -- engines are shared); a half-duplex path would leave 50 %.
        return checks.bandwidth{ value = out.bi, peak = out.uni, fraction = 0.6, what = "H2D while D2H runs",
          peak_what = "H2D alone: PCIe is full duplex, the other direction should not halve it", where = "results pane (3)" }
      end,
    },
    {
      id = "events", title = "Exercise: GPU1 waits on GPU0's event",
      text = "steps/03-events.md",
      exercise = "stale.lua",
      hints = {
        "The copy reads x too early: something must make the `consume` stream wait until `produce` has finished the fills.",
        "An event is a marker on one stream; another stream can wait for it. Record it on `produce` after the fills, wait for it on `consume` before the copy.",
        "Three lines at the TODO: local e0 = mgpu.event(); e0:record(produce); consume:wait(e0)",
      },
      run = function(lab)
        local res = lab.spmd(lab.exercise, { ranks = 1, timeout = 60 })
        local r = row(res, 0)
        if r then
          lab.table{ title = "stale.lua", columns = { "", "value" },
            rows = { { "checksum GPU" .. tostring(r.to) .. " read", tostring(r.seen) },
                     { "checksum of GPU" .. tostring(r.from) .. "'s result", tostring(r.truth) },
                     { "copy started after the fills ended by", r.gap_ms and string.format("%.3f ms", r.gap_ms) or "(not measurable)" } } }
        end
        return res
      end,
      check = function(lab, res)
        local r = row(res, 0)
        if not res.ok or not r then return broken(res, "stale.lua") end
        local v = { checks.equals{ value = r.seen, expected = r.truth,
          what = string.format("checksum GPU%s read right after its copy vs GPU%s's finished result", tostring(r.to), tostring(r.from)),
          where = "results pane (3), table stale.lua" } }
        if type(r.gap_ms) == "number" then
          local ok = r.gap_ms >= -1e-6
          v[#v + 1] = { ok = ok,
            msg = ok and string.format("the copy on GPU%d's stream started %.3f ms after GPU%d's work ended: ordered by the event",
                                       r.to, r.gap_ms, r.from)
                     or string.format("the copy on GPU%d's stream started %.3f ms BEFORE GPU%d's work ended: it read x while "
                                       .. "layer0 was still writing it%s", r.to, -r.gap_ms, r.from,
                                       lab.backend.simulated and " (the SIMULATED machine applies data at once, so the checksum "
                                       .. "may match here; on a GPU this is the stale-data bug - the timeline shows the overlap)" or ""),
            saw = string.format("copy start - fill end = %.3f ms", r.gap_ms), wanted = ">= 0 ms (the copy waits for the fills)",
            where = "timeline pane (4): the produce and consume streams" }
        end
        return checks.all(v)
      end,
    },
    {
      id = "uva", title = "UVA: where does a pointer live?",
      text = "steps/04-uva.md",
      hints = { "A kernel can use a pointer only if the address is mapped into the GPU's address space.",
                "The results table's device_ptr column says, buffer by buffer, whether a GPU can use the pointer.",
                "Device and peer memory are GPU memory; pinned (page-locked) host memory is mapped for the GPU; pageable memory is not." },
      questions = { { id = "kernel_ptrs", ask = "How many of the buffers in the table can a GPU kernel dereference directly?" } },
      run = function(lab)
        local res = lab.spmd("scripts/uva.lua", { ranks = 1 })
        local r = row(res, 0)
        if r then
          local rows = {}
          for _, name in ipairs({ "device", "peer", "pinned", "pageable" }) do
            local i = r[name]
            if type(i) == "table" then
              rows[#rows + 1] = { name, tostring(i.address), tostring(i.kind), tostring(i.device), tostring(i.device_ptr), tostring(i.host_ptr) }
            end
          end
          lab.table{ title = "cudaPointerGetAttributes", columns = { "buffer", "address", "kind", "device", "device_ptr", "host_ptr" }, rows = rows }
        end
        return res
      end,
      check = function(lab, res)
        local r = row(res, 0)
        if not res.ok or not r then return broken(res, "uva.lua") end
        local function kernel_ptrs(x)
          local n = 0
          for _, name in ipairs({ "device", "peer", "pinned", "pageable" }) do
            if type(x[name]) == "table" and x[name].device_ptr == true then n = n + 1 end
          end
          return n
        end
        local function get(name, f) return type(r[name]) == "table" and r[name][f] or nil end
        local v = {
          checks.equals{ value = get("device", "kind"), expected = "device", what = "kind of a device buffer", where = "results pane (3)" },
          checks.equals{ value = get("device", "device"), expected = r.dev, what = "device of a buffer on GPU" .. tostring(r.dev), where = "results pane (3)" },
          checks.equals{ value = get("pinned", "kind"), expected = "pinned", what = "kind of a pinned host buffer", where = "results pane (3)" },
          checks.equals{ value = get("pageable", "kind"), expected = "pageable", what = "kind of a pageable host buffer", where = "results pane (3)" },
          checks.equals{ value = r.offset_bytes, expected = 4000, what = "address of element 1000 minus element 0 (f32)", where = "log pane (5)" },
          checks.equals{ value = lab.answer("kernel_ptrs"), expected = kernel_ptrs(r), what = "buffers a kernel can dereference",
            answer = true, where = "results pane (3), column device_ptr" },
        }
        if r.peer_dev then
          v[#v + 1] = checks.equals{ value = get("peer", "device"), expected = r.peer_dev, what = "device of a buffer on GPU" .. tostring(r.peer_dev),
            where = "results pane (3), row peer" }
        end
        return checks.all(v)
      end,
    },
    {
      id = "ipc", title = "CUDA IPC between two processes, and the handle's lifetime",
      text = "steps/05-ipc.md",
      hints = { "The order that works: importers ipc_close, barrier, then the exporter frees.",
                "The second table shows what the wrong order did on this backend." },
      run = function(lab)
        local good = lab.spmd("scripts/ipc.lua", { ranks = 2, timeout = 60 })
        local bad = lab.spmd("scripts/ipc_stale.lua", { ranks = 2, timeout = 60 })
        local r0, r1 = row(good, 0), row(good, 1)
        if r0 and r1 then
          lab.table{ title = "ipc.lua (close, barrier, free)", columns = { "", "rank 0 (owner)", "rank 1 (importer)" },
            rows = { { "checksum of the buffer", tostring(r0.seen), tostring(r1.seen) },
                     { "after rank 1 wrote 7s into it", tostring(r0.after), "(closed)" },
                     { "checksum of 7s", tostring(r0.sevens), "" } } }
        end
        local b1 = row(bad, 1)
        if b1 then
          local what = not b1.opened and ("ipc_open failed: " .. tostring(b1.error))
                       or (b1.read_ok == false and ("reading failed: " .. tostring(b1.error)))
                       or (tostring(b1.seen) == tostring(b1.want) and "opened and read the OLD data after the free - no error at all")
                       or "opened and read FOREIGN data after the free - no error at all"
          lab.log("ipc_stale.lua (free before the importer opened): " .. what)
          lab.table{ title = "ipc_stale.lua (freed too early)", columns = { "what rank 1 got" }, rows = { { what } } }
        end
        return { good = good, bad = bad }
      end,
      check = function(lab, out)
        local good = out.good
        local r0, r1 = row(good, 0), row(good, 1)
        if not good.ok or not r0 or not r1 then return broken(good, "ipc.lua") end
        local v = {
          checks.identical{ values = { [0] = r0.seen, [1] = r1.seen }, ranks = 2,
            what = "checksum of rank 0's buffer, read by its owner and through the IPC mapping", where = "results pane (3)" },
          checks.equals{ value = r0.after, expected = r0.sevens, what = "rank 0 sees what rank 1 wrote through the handle",
            where = "results pane (3), row 'after rank 1 wrote 7s'" },
        }
        if lab.backend.simulated then
          local b1 = row(out.bad, 1)
          v[#v + 1] = checks.equals{ value = b1 and (not b1.opened or b1.read_ok == false) and "refused" or "not caught",
            expected = "refused", what = "the SIMULATED machine catches the stale handle", where = "log pane (5)" }
        end
        return checks.all(v)
      end,
    },
  },
}
