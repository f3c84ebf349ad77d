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
  return { ok = false, msg = L("%s did not finish on rank %d: %s", what, r, tostring(e or (res and res.reason))),
           saw = L("an error"), wanted = L("the script finishes"), where = L("log pane (5)") }
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

-- A check that measures the very ratio a question asks for keeps its pass or
-- fail, but says the ratio only once the learner's answer is right: until
-- then `hidden` ({msg, saw, wanted}) stands for its texts.
local function withhold(v, answer, hidden)
  if answer.ok then return v end
  return { ok = v.ok, msg = hidden.msg, saw = hidden.saw, wanted = hidden.wanted, where = v.where }
end

-- The line number of a site "stale.lua:31", or nil.
local function site_line(site) return tonumber(tostring(site or ""):match(":(%d+)$")) end

-- What the learner's stale.lua orders, read from its text as a reviewer
-- would: the line of layer0's fills and of the copy, the streams they use,
-- and every event record and stream wait (the probes' left out). It only
-- points at the fault; the race detector and the sync records judge.
local function read_ordering(text)
  local o = { records = {}, waits = {}, events = {}, code = {} }
  local lines, i = {}, 0
  for line in (tostring(text or "") .. "\n"):gmatch("([^\n]*)\n") do
    i = i + 1
    lines[i] = line:gsub("%-%-.*$", "")                    -- code, not comments
    o.code[i] = lines[i]:match("^%s*(.-)%s*$")
    local ev = lines[i]:match("local%s+([%w_]+)%s*=%s*mgpu%.event")
    if ev then o.events[ev] = true end
  end
  for n, l in ipairs(lines) do
    if not o.fills then
      local st = l:match(':fill%s*{[^}]*kind%s*=%s*"random"[^}]*stream%s*=%s*([%w_]+)')
      if st then o.fills, o.producer = n, st end
    end
    if not o.copy and l:match("mgpu%.copy%s*%(") then
      o.copy, o.reader = n, l:match("mgpu%.copy%s*%(.-stream%s*=%s*([%w_]+)")
    end
    for ev, st in l:gmatch("([%w_]+)%s*:%s*record%s*%(%s*([%w_]+)%s*%)") do
      if not ev:match("^probe_") then o.records[#o.records + 1] = { event = ev, stream = st, line = n }; o.events[ev] = true end
    end
  end
  for n, l in ipairs(lines) do
    for a, b in l:gmatch("([%w_]+)%s*:%s*wait%s*%(%s*([%w_]+)%s*%)") do
      -- stream:wait(event) or event:wait(stream)
      if o.events[a] or a:match("^probe_") then a, b = b, a end
      o.waits[#o.waits + 1] = { stream = a, event = b, line = n }
    end
  end
  return o
end

-- Why the copy raced the fills, from read_ordering: one sentence that names
-- the fault, or nil when the text does not show it.
local function ordering_fault(o)
  local prod, reader = o.producer or "produce", o.reader or "consume"
  if reader == prod then
    return L("the copy runs on %s, the stream of the fills (line %s), so no event orders anything: "
      .. "GPU1's stream, which reads y next, never waits on an event - copy on GPU1's stream and make it wait for "
      .. "an event of GPU0's", reader, tostring(o.copy))
  end
  local mine = nil
  for _, w in ipairs(o.waits) do if w.stream == reader then mine = w end end
  if #o.waits == 0 then
    local rec = o.records[1]
    return (rec and L("%s is recorded on %s (line %d), but %s never waits on an event: the note's "
             .. "e0.record() without e0.wait() orders nothing", rec.event, rec.stream, rec.line, reader)
             or L("no event orders the copy: %s never waits on an event recorded on %s after the fills",
                              reader, prod))
  end
  if not mine then
    local w = o.waits[1]
    return L("%s waits for %s (line %d), not %s: a stream that waits for its own marker orders "
      .. "nothing, and %s, the stream that copies, still starts at once", w.stream, w.event, w.line, reader, reader)
  end
  if o.copy and mine.line > o.copy then
    return L("%s waits for %s at line %d, after the copy at line %d: a wait holds back only the work "
      .. "queued after it", reader, mine.event, mine.line, o.copy)
  end
  local rec
  for _, r in ipairs(o.records) do if r.event == mine.event and r.line <= mine.line then rec = r end end
  if not rec then
    return L("%s waits for %s (line %d), but nothing records %s on %s before that", reader, mine.event,
                         mine.line, mine.event, prod)
  end
  if rec.stream ~= prod then
    return L("%s is recorded on %s (line %d), not on %s: the marker must sit in the stream that does "
      .. "the writes, after them", rec.event, rec.stream, rec.line, prod)
  end
  if o.fills and rec.line < o.fills then
    return L("%s is recorded on %s at line %d, before the fills (line %d): the marker stands in front "
      .. "of layer0's work, so waiting for it waits for nothing", rec.event, rec.stream, rec.line, o.fills)
  end
  return nil
end

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
          lab.table{ title = L("GPU%d -> GPU%d, %d MiB (GB/s)", r.from, r.to, (r.bytes or 0) // 1048576),
                     columns = { L("peer access"), L("copy engine (CE)"), L("SM copy kernel") },
                     rows = { { "off", f1(r.off_ce), r.off_sm_refused and L("refused") or L("ran") },
                              { "on", r.can_access and f1(r.on_ce) or L("impossible"), r.can_access and f1(r.on_sm) or "-" } } }
          if r.on_ce then lab.record("p2p_gbs", r.on_ce) end
          lab.record("staged_gbs", r.off_ce)
        elseif r then
          lab.table{ title = L("one GPU, %d MiB (GB/s)", (r.bytes or 0) // 1048576),
                     columns = { L("copy"), L("pinned host"), L("pageable host") },
                     rows = { { "host -> device", f1(r.h2d_pinned), f1(r.h2d_pageable) },
                              { "device -> host", f1(r.d2h_pinned), f1(r.d2h_pageable) },
                              { L("device -> device (local)"), f1(r.d2d), "" } } }
          lab.record("h2d_pinned_gbs", r.h2d_pinned)
          lab.record("h2d_pageable_gbs", r.h2d_pageable)
        end
        return res
      end,
      check = function(lab, res)
        local r = row(res, 0)
        if not res.ok or not r then return broken(res, "copies.lua") end
        if r.mode == "single" then
          local answer = checks.close{ value = lab.answer("speedup"), expected = r.h2d_pinned / r.h2d_pageable, rtol = 0.25,
            what = L("your speedup pinned / pageable"), answer = true, where = L("results pane (3), row host -> device") }
          local v = checks.bandwidth{ value = r.h2d_pinned, peak = r.h2d_pageable, fraction = 1.5, what = L("H2D from pinned memory"),
            peak_what = L("H2D from pageable memory (one GPU: no peer to copy to)"),
            where = L("results pane (3), table 'one GPU'") }
          return {
            withhold(v, answer, {
              msg = v.ok and L("H2D from pinned memory is well ahead of pageable memory (how many times: your question speedup)")
                or L("H2D from pinned memory is not even 1.5x H2D from pageable memory"),
              saw = L("pinned %s GB/s, pageable %s GB/s", f1(r.h2d_pinned), f1(r.h2d_pageable)),
              wanted = L("pinned >= 1.5x pageable") }),
            answer,
          }
        end
        if not r.can_access then
          return { ok = false, msg = L("GPU%d cannot access GPU%d's memory (cudaDeviceCanAccessPeer = 0): every "
                     .. "copy is staged through host memory at %s GB/s. The topology says why: the path is SYS (across "
                     .. "sockets) or P2P is disabled (ACS/IOMMU, --fault p2p-disabled) - the note's topology mismatch.",
                     r.from, r.to, f1(r.off_ce)),
                   saw = L("peer access impossible, %s GB/s staged", f1(r.off_ce)), wanted = L("peer access between GPU0 and GPU1"),
                   where = L("lab 1, step 3: the peer-access matrix") }
        end
        local answer = checks.close{ value = lab.answer("speedup"), expected = r.on_ce / r.off_ce, rtol = 0.25,
          what = L("your speedup on / off"), answer = true, where = L("results pane (3), column CE") }
        local v = checks.bandwidth{ value = r.on_ce, peak = r.off_ce, fraction = 2, what = L("CE copy with peer access on"),
          peak_what = L("the same copy with peer access off (staged through host memory)"),
          where = L("results pane (3), column CE") }
        return {
          withhold(v, answer, {
            msg = v.ok and L("CE copy with peer access on is well ahead of the copy staged through host memory "
              .. "(how many times: your question speedup)")
              or L("CE copy with peer access on is not even 2x the same copy staged through host memory"),
            saw = L("peer on %s GB/s, peer off %s GB/s", f1(r.on_ce), f1(r.off_ce)),
            wanted = L("peer on >= 2x peer off") }),
          checks.equals{ value = r.off_sm_refused, expected = true, what = L("an SM copy kernel with peer access off is refused"),
            where = L("results pane (3), column SM copy kernel") },
          answer,
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
          out.what_uni, out.what_bi = L("GPU0 -> GPU1 alone"), L("GPU0 <-> GPU1 both directions (total)")
        else
          lab.progress(0, "host_to_device_memcpy_ce")
          local uni = lab.copy("host_to_device_memcpy_ce", opts)
          lab.progress(0.5, "host_to_device_bidirectional_memcpy_ce")
          local bi = lab.copy("host_to_device_bidirectional_memcpy_ce", opts)
          out.uni = copy_cell(uni, "host_to_device_memcpy_ce", nil, 0, 0)
          out.bi = copy_cell(bi, "host_to_device_bidirectional_memcpy_ce", nil, 0, 0)
          out.what_uni, out.what_bi = L("H2D alone"), L("H2D while D2H runs")
        end
        lab.table{ title = L("uni- vs bidirectional (nvbandwidth testcases, GB/s)"), columns = { L("copy"), "GB/s" },
                   rows = { { out.what_uni, f1(out.uni) }, { out.what_bi, f1(out.bi) } } }
        return out
      end,
      check = function(lab, out)
        if out.two then
          return checks.bandwidth{ value = out.bi, peak = out.uni, fraction = 1.5, what = L("both directions at once (total)"),
            peak_what = L("one direction alone: a full-duplex link carries both"), where = L("results pane (3)") }
        end
        -- 0.6, not 0.8: an H200 on PCIe Gen5 kept 79 % (host memory and DMA
        -- engines are shared); a half-duplex path would leave 50 %.
        return checks.bandwidth{ value = out.bi, peak = out.uni, fraction = 0.6, what = L("H2D while D2H runs"),
          peak_what = L("H2D alone: PCIe is full duplex, the other direction should not halve it"), where = L("results pane (3)") }
      end,
    },
    {
      id = "events", title = "Exercise: GPU1 waits on GPU0's event",
      text = "steps/03-events.md",
      exercise = "stale.lua",
      hints = {
        "The copy reads x too early: something must make the `consume` stream wait until `produce` has finished the fills.",
        "An event is a marker on one stream; another stream can wait for it. Record it on `produce` after the fills, wait for it on `consume` before the copy.",
        "Where each of the two calls goes matters: a record marks what its stream has queued so far, and a wait "
          .. "holds back only what its stream queues after it. (`mgpulab hint 3 --step events --solution` shows the "
          .. "reference, recorded as shown.)",
      },
      run = function(lab)
        local res = lab.spmd(lab.exercise, { ranks = 1, timeout = 60 })
        local r = row(res, 0)
        if r then
          lab.table{ title = "stale.lua", columns = { "", L("value") },
            rows = { { L("checksum GPU%s read", tostring(r.to)), tostring(r.seen) },
                     { L("checksum of GPU%s's result", tostring(r.from)), tostring(r.truth) },
                     { L("copy started after the fills ended by"), r.gap_ms and string.format("%.3f ms", r.gap_ms) or L("(not measurable)") } } }
        end
        return res
      end,
      check = function(lab, res)
        local r = row(res, 0)
        local o = read_ordering(lab.read(lab.exercise))
        if not res.ok or not r then
          -- an event of GPU0 recorded on GPU1's stream is refused: the
          -- engine's advice (an event of GPU1) would order nothing either
          local v = broken(res, "stale.lua")
          local fault = v.msg:find("cannot be recorded on a stream of device", 1, true) and ordering_fault(o)
          if fault then v.msg = L("%s - but %s", v.msg, fault) end
          return v
        end
        local race = res.ranks[0].race or {}
        local raced = #(res.races or {}) > 0
        local where_src = L("your stale.lua at the TODO; timeline pane (4): the produce and consume streams")
        -- (1) the data: what GPU1 read right after its copy
        local data = { ok = r.seen == r.truth, saw = L("checksum %s read by GPU%s", tostring(r.seen), tostring(r.to)),
          wanted = L("the checksum of GPU%s's finished x, %s", tostring(r.from), tostring(r.truth)),
          where = L("results pane (3), table stale.lua") }
        data.msg = data.ok and L("GPU%s's copy holds GPU%s's finished result", tostring(r.to), tostring(r.from))
          or L("what GPU%s read after its copy is not GPU%s's finished result (the checksums differ): it "
            .. "was read before the data was there%s", tostring(r.to), tostring(r.from), lab.backend.simulated and L(" - the SIMULATED machine "
            .. "shows a read that races a write as NaN, as a GPU may show the old data") or "")
        -- (2) the order: on the device, the host never blocking in between
        local blocked
        for _, sy in ipairs(race.syncs or {}) do
          local l = site_line(sy.site)
          if l and o.fills and o.copy and l > o.fills and l < o.copy then blocked = sy break end
        end
        local order
        if blocked then
          order = { ok = false,
            msg = L("the host blocks: %s at %s (%s) makes the CPU wait until GPU%s has finished before "
              .. "it even queues the copy - the data is right, but the host can queue nothing else meanwhile. The note's "
              .. "e0.wait() orders the streams on the device: record an event on %s after the fills and make %s wait "
              .. "for it", o.code[site_line(blocked.site)] or "?", tostring(blocked.site), tostring(blocked.what),
              tostring(r.from), o.producer or "produce", o.reader or "consume"),
            saw = L("%s at %s between the fills and the copy", tostring(blocked.what), tostring(blocked.site)),
            wanted = L("the copy ordered after the fills on the device (an event recorded, a stream waiting), no host synchronize in between"),
            where = L("your stale.lua, line %s", tostring(site_line(blocked.site))) }
        elseif raced then
          local gap = type(r.gap_ms) == "number" and r.gap_ms < 0 and o.reader ~= o.producer
            and L(" (the timeline shows the copy starting %.3f ms before the fills ended)", -r.gap_ms) or ""
          order = { ok = false,
            msg = (ordering_fault(o) or L("the copy is not ordered after the fills: the race below names both lines")) .. gap,
            saw = L("the copy on %s not ordered after the fills on %s", o.reader or "consume", o.producer or "produce"),
            wanted = L("an event recorded on %s after the fills, waited for by %s before the copy",
              o.producer or "produce", o.reader or "consume"),
            where = where_src }
        elseif (tonumber(race.waits) or 0) == 0 and not (race.waits == nil and #o.waits > 0) then
          -- (no race summary at all: the script's text says whether it waits)
          order = { ok = false,
            msg = L("the data is right, but GPU1's stream never waits on an event: the exercise is the note's "
              .. "e0.record() on GPU0's stream and e0.wait() on GPU1's, with the copy on GPU1's stream"),
            saw = L("no stream waited on an event"),
            wanted = L("GPU1's stream waiting on an event recorded on GPU0's stream after the fills"),
            where = where_src }
        else
          order = { ok = true, msg = L("the copy on GPU%s's stream is ordered after GPU%s's fills by an "
              .. "event, on the device: the host never waited", tostring(r.to), tostring(r.from)),
            saw = L("a stream wait on an event, no race, no host synchronize in between"),
            wanted = L("device-side ordering"), where = where_src }
        end
        -- a list, not checks.all: an unexpected race adds the framework's
        -- own verdict beside these, and one summary line reads better
        return { data, order }
      end,
    },
    {
      id = "uva", title = "UVA: where does a pointer live?",
      text = "steps/04-uva.md",
      hints = { "A kernel can use a pointer only if the address is mapped into the GPU's address space.",
                "The results table's device_ptr column says, buffer by buffer, whether a GPU can use the pointer.",
                "Device and peer memory are GPU memory; pinned (page-locked) host memory is mapped for the GPU; pageable memory is not " ..
                "(HMM and ATS, in the step text, reach it without a mapping: the table counts mappings)." },
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
          lab.table{ title = "cudaPointerGetAttributes", columns = { L("buffer"), L("address"), "kind", "device", "device_ptr", "host_ptr" }, rows = rows }
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
          checks.equals{ value = get("device", "kind"), expected = "device", what = L("kind of a device buffer"), where = L("results pane (3)") },
          checks.equals{ value = get("device", "device"), expected = r.dev, what = L("device of a buffer on GPU%s", tostring(r.dev)), where = L("results pane (3)") },
          checks.equals{ value = get("pinned", "kind"), expected = "pinned", what = L("kind of a pinned host buffer"), where = L("results pane (3)") },
          checks.equals{ value = get("pageable", "kind"), expected = "pageable", what = L("kind of a pageable host buffer"), where = L("results pane (3)") },
          checks.equals{ value = r.offset_bytes, expected = 4000, what = L("address of element 1000 minus element 0 (f32)"), where = L("log pane (5)") },
          checks.equals{ value = lab.answer("kernel_ptrs"), expected = kernel_ptrs(r), what = L("buffers a kernel can dereference"),
            answer = true, where = L("results pane (3), column device_ptr") },
        }
        if r.peer_dev then
          v[#v + 1] = checks.equals{ value = get("peer", "device"), expected = r.peer_dev, what = L("device of a buffer on GPU%s", tostring(r.peer_dev)),
            where = L("results pane (3), row peer") }
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
          lab.table{ title = L("ipc.lua (close, barrier, free)"), columns = { "", L("rank 0 (owner)"), L("rank 1 (importer)") },
            rows = { { L("checksum of the buffer"), tostring(r0.seen), tostring(r1.seen) },
                     { L("after rank 1 wrote 7s into it"), tostring(r0.after), L("(closed)") },
                     { L("checksum of 7s"), tostring(r0.sevens), "" } } }
        end
        local b1 = row(bad, 1)
        if b1 then
          local what = not b1.opened and L("ipc_open failed: %s", tostring(b1.error))
                       or (b1.read_ok == false and L("reading failed: %s", tostring(b1.error)))
                       or (tostring(b1.seen) == tostring(b1.want) and L("opened and read the OLD data after the free - no error at all"))
                       or L("opened and read FOREIGN data after the free - no error at all")
          lab.log(L("ipc_stale.lua (free before the importer opened): %s", what))
          lab.table{ title = L("ipc_stale.lua (freed too early)"), columns = { L("what rank 1 got") }, rows = { { what } } }
        end
        return { good = good, bad = bad }
      end,
      check = function(lab, out)
        local good = out.good
        local r0, r1 = row(good, 0), row(good, 1)
        if not good.ok or not r0 or not r1 then return broken(good, "ipc.lua") end
        local v = {
          checks.identical{ values = { [0] = r0.seen, [1] = r1.seen }, ranks = 2,
            what = L("checksum of rank 0's buffer, read by its owner and through the IPC mapping"), where = L("results pane (3)") },
          checks.equals{ value = r0.after, expected = r0.sevens, what = L("rank 0 sees what rank 1 wrote through the handle"),
            where = L("results pane (3), row 'after rank 1 wrote 7s'") },
        }
        if lab.backend.simulated then
          local b1 = row(out.bad, 1)
          v[#v + 1] = checks.equals{ value = b1 and (not b1.opened or b1.read_ok == false) and "refused" or "not caught",
            expected = "refused", what = L("the SIMULATED machine catches the stale handle"), where = L("log pane (5)") }
        end
        return checks.all(v)
      end,
    },
  },
}
