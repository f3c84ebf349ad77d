-- labs/12-diagnose/lab.lua - diagnose the cluster (issue 28, beyond the
-- note). Step 1 hides one fault in the sim machine - drawn per learner
-- from the faults that can show on this preset, or the one the class
-- configuration (or --fault) pins - and shows what an engineer would run:
-- the topology, host and peer copies, an all_reduce with NCCL's INFO log,
-- and per-rank times. The learner names the component, the GPU, NIC or rank,
-- and one number (or word) that proves it. The check judges the diagnosis
-- against the evidence tables the step itself built, never printing the
-- answer. Step 2 gives real-looking logs (NCCL, PyTorch's watchdog, a flight
-- recorder dump) to read; the learner names each one's cause.

local MiB = 1024 * 1024

--- The faults a draw can give -------------------------------------------

-- component: what the learner names; target: what `which` names ("gpu",
-- "nic", "rank", or nil for the whole machine); applies(m): whether this
-- machine can show it; spec(m, k): the --fault item for the k-th draw.
local KINDS = {
  { id = "nvlink-down", component = "nvlink", target = "gpu",
    applies = function(m) return m.nvlink end,
    spec = function(m, k) return string.format("nvlink-down:%d", k % m.g0) end },
  { id = "p2p-disabled", component = "p2p",
    applies = function(m) return m.g0 >= 2 end,
    spec = function() return "p2p-disabled" end },
  { id = "no-gdr", component = "gdr",
    applies = function(m) return m.hosts >= 2 end,
    spec = function() return "no-gdr" end },
  { id = "straggler", component = "straggler", target = "rank",
    applies = function(m) return m.gpus >= 2 end,
    spec = function(m, k) return string.format("straggler:%d", k % m.gpus) end },
  { id = "pcie-downgrade", component = "pcie", target = "gpu",
    applies = function(m) return m.g0 >= 1 end,
    spec = function(m, k) return string.format("pcie-downgrade:%d", k % m.g0) end },
  { id = "nic-down", component = "nic", target = "nic",
    applies = function(m) return m.nics >= 1 end,
    spec = function(m, k) return string.format("nic-down:%d", k % m.nics) end },
  { id = "nic-slow", component = "nic", target = "nic",
    applies = function(m) return m.hosts >= 2 end,
    spec = function(m, k) return string.format("nic-slow:%d", k % m.nics) end },
  { id = "ib-speed", component = "nic", target = "nic",
    applies = function(m) return m.nics >= 1 end,
    spec = function(m, k) return string.format("ib-speed:%d", k % m.nics) end },
  { id = "net-socket", component = "socket",
    applies = function(m) return m.hosts >= 2 end,
    spec = function() return "net-socket" end },
}

local COMPONENTS = {
  nvlink = { "nvlink", "nvlinks", "nv", "nvlink down" },
  p2p = { "p2p", "peer", "peer access", "p2p disabled", "acs", "iommu" },
  gdr = { "gdr", "gpudirect", "gpudirect rdma", "rdma", "no-gdr" },
  straggler = { "straggler", "slow rank", "rank" },
  pcie = { "pcie", "pci", "pcie link", "pci-e" },
  nic = { "nic", "hca", "ib", "infiniband", "port", "ib port", "network card" },
  socket = { "socket", "sockets", "net/socket", "tcp", "network transport" },
}
local TOOLS = { topo = true, copy = true, bench = true, nccl = true, ranks = true }

local function trim(s) return (tostring(s):gsub("^%s+", ""):gsub("%s+$", "")) end

local function component_of(answer)
  local a = trim(answer):lower()
  for id, names in pairs(COMPONENTS) do
    for _, n in ipairs(names) do if a == n then return id end end
  end
  return nil
end

-- FNV-1a over the learner and the machine: the same learner meets the same
-- fault on the same preset, another learner (likely) another one.
local function hash(s)
  local h = 2166136261
  for i = 1, #s do h = ((h ~ s:byte(i)) * 16777619) & 0xffffffff end
  return h
end

--- The machine, healthy --------------------------------------------------

local function path_rank(p)
  local R = { X = 0, PIX = 1, PXB = 2, PHB = 3, NODE = 4, SYS = 5, NET = 6 }
  if type(p) ~= "string" then return 99 end
  if p:match("^NV%d+") then return 0.5 end
  return R[p] or 99
end

local function facts(topo)
  local m = { gpus = #(topo.gpus or {}), nics = #(topo.nics or {}), hosts = topo.hosts or 1, g0 = 0, nvlink = false }
  for _, g in ipairs(topo.gpus or {}) do
    if g.host == 0 then m.g0 = m.g0 + 1 end
    if (g.nvlinks or 0) > 0 then m.nvlink = true end
  end
  -- each GPU's nearest NIC on the healthy machine (the one NCCL would use)
  m.nic_of = {}
  local rows = topo.matrix and topo.matrix.rows or {}
  for _, g in ipairs(topo.gpus or {}) do
    local best, bp
    for k, n in ipairs(topo.nics or {}) do
      local p = rows[g.index + 1] and rows[g.index + 1][m.gpus + k]
      if n.host == g.host and (not bp or path_rank(p) < path_rank(bp)) then best, bp = k - 1, p end
    end
    m.nic_of[g.index] = best
  end
  return m
end

-- The hidden fault: the run's own (--fault, the class configuration's pin),
-- else a draw among the faults this machine can show.
local function hidden_fault(lab, m)
  local pinned = lab.backend.fault
  if pinned and pinned ~= "" then
    local first = pinned:match("^%s*([^,]+)")
    local name = first:match("^([%w%-]+)")
    for _, kind in ipairs(KINDS) do
      if kind.id == name then
        local arg = tonumber(first:match("^[%w%-]+:(%d+)") or "0")
        return { kind = kind, spec = first, arg = kind.target and arg or nil, pinned = true }
      end
    end
    return nil, L("the run's --fault '%s' is not one this lab diagnoses", pinned)
  end
  local cands = {}
  for _, kind in ipairs(KINDS) do if kind.applies(m) then cands[#cands + 1] = kind end end
  if #cands == 0 then return nil, L("no fault of this lab can show on this machine") end
  -- the class configuration's draw_seed (when it has one) mixes in: the
  -- instructor varies the draws from one class to the next
  local seed = (lab.draw_seed and lab.draw_seed ~= "") and ("|" .. lab.draw_seed) or ""
  local h = hash(tostring(lab.learner) .. "|" .. tostring(lab.backend.machine) .. seed)
  local kind = cands[h % #cands + 1]
  local k = (h // 7919) % 1000
  local spec = kind.spec(m, k)
  return { kind = kind, spec = spec, arg = kind.target and tonumber(spec:match(":(%d+)")) or nil }
end

--- Evidence: each tool's numbers, this machine and the healthy one ---------

local function f1(x) return type(x) == "number" and string.format("%.1f", x) or tostring(x) end

-- A cell: tool, label, value (number or word), ref (the healthy machine's),
-- about = {gpu =, gpus =, nic =, rank =} (nil: the whole machine), kind
-- (what the wrong-component verdicts look for: "peer", "net").
local function cell(list, tool, label, value, ref, about, kind)
  local bad
  if ref == nil then
    bad = false -- no reference to judge it by
  elseif type(value) == "number" and type(ref) == "number" then
    bad = math.abs(value - ref) > 0.1 * math.max(math.abs(ref), 1e-9)
  else
    bad = tostring(value) ~= tostring(ref)
  end
  list[#list + 1] = { tool = tool, label = label, value = value, ref = ref, about = about, bad = bad, kind = kind }
end

local function topo_cells(cells, topo, ref, nic_of)
  local rows = {}
  for i, g in ipairs(topo.gpus or {}) do
    local r = ref.gpus[i]
    cell(cells, "topo", L("GPU%d PCIe generation", g.index), g.pcie_gen or "-", r.pcie_gen or "-", { gpu = g.index })
    cell(cells, "topo", L("GPU%d PCIe width", g.index), g.pcie_width or "-", r.pcie_width or "-", { gpu = g.index })
    cell(cells, "topo", L("GPU%d NVLinks", g.index), g.nvlinks or 0, r.nvlinks or 0, { gpu = g.index })
    local function link(x) return x.pcie_gen and string.format("Gen%d x%d", x.pcie_gen, x.pcie_width or 0) or "-" end
    cell(cells, "topo", L("GPU%d PCIe link", g.index), link(g), link(r), { gpu = g.index })
    cell(cells, "topo", L("GPU%d GPUDirect RDMA", g.index), g.gdr and "yes" or "no", r.gdr and "yes" or "no",
         { gpu = g.index })
    local nic = nic_of[g.index]
    rows[#rows + 1] = { "GPU" .. g.index, tostring(g.host), link(g), tostring(g.nvlinks or 0), g.gdr and "yes" or "no",
                        nic and ("NIC" .. nic) or "-" }
  end
  local nrows = {}
  for i, n in ipairs(topo.nics or {}) do
    local r = ref.nics[i]
    cell(cells, "topo", L("NIC%d state", n.index), n.state or "ACTIVE", r.state or "ACTIVE", { nic = n.index })
    cell(cells, "topo", L("NIC%d rate", n.index), n.speed_gbps, r.speed_gbps, { nic = n.index })
    cell(cells, "topo", L("NIC%d GPUDirect RDMA", n.index), n.gdr and "yes" or "no", r.gdr and "yes" or "no",
         { nic = n.index })
    nrows[#nrows + 1] = { "NIC" .. n.index, tostring(n.host), n.name, n.state or "ACTIVE", f1(n.speed_gbps),
                          f1(n.speed_max_gbps or n.speed_gbps), n.gdr and "yes" or "no" }
  end
  -- peer access: pairs that cannot map each other
  -- peer access: ordered pairs of one node that cannot map each other
  local function off(doc)
    local c, gpus = 0, doc.gpus or {}
    for a, row in ipairs(doc.peer_access or {}) do
      for b, v in ipairs(row) do
        if a ~= b and v == false and gpus[a] and gpus[b] and gpus[a].host == gpus[b].host then c = c + 1 end
      end
    end
    return c
  end
  cell(cells, "topo", L("GPU pairs of a node without peer access"), off(topo), off(ref), nil, "peer")
  return rows, nrows, { L("GPU pairs of a node without peer access"), tostring(off(topo)), tostring(off(ref)) }
end

-- nvbandwidth's matrix of one testcase: {rows, cols, at(r, c)} (0-based;
-- nil where the copy was not possible), or nil.
local function matrix_of(doc, name)
  for _, tc in ipairs((doc and doc.testcases) or {}) do
    local mx = tc.name == name and tc.matrices and tc.matrices[1]
    if mx and mx.values then
      return { rows = mx.rows or #mx.values, cols = mx.cols or 0,
               at = function(r, c) local row = mx.values[r + 1]; return row and row[c + 1] end }
    end
  end
  return nil
end

-- A copy matrix whose every value is the median of this one's: the
-- reference when there is no healthy machine to run (a pinned fault).
local function median_of(mx)
  if not mx then return nil end
  local all = {}
  for r = 0, mx.rows - 1 do
    for c = 0, mx.cols - 1 do if type(mx.at(r, c)) == "number" then all[#all + 1] = mx.at(r, c) end end
  end
  table.sort(all)
  local med = all[(#all + 1) // 2]
  return { rows = mx.rows, cols = mx.cols, at = function(r, c) return type(mx.at(r, c)) == "number" and med or nil end }
end

local function copy_cells(cells, hv, hr, dv, dr)
  local rows = {}
  for g = 0, (hv and hv.cols or 0) - 1 do
    local v, r = hv.at(0, g), hr and hr.at(0, g)
    if type(v) == "number" then cell(cells, "copy", L("host -> GPU%d", g), v, r, { gpu = g }) end
    rows[#rows + 1] = { "GPU" .. g, f1(v), f1(r) }
  end
  local drows = {}
  for a = 0, (dv and dv.rows or 0) - 1 do
    local row = { "GPU" .. a }
    for b = 0, dv.cols - 1 do
      local v, r = dv.at(a, b), dr and dr.at(a, b)
      if type(v) == "number" then
        cell(cells, "copy", L("GPU%d <- GPU%d peer read", a, b), v, r, { gpus = { a, b } })
        row[#row + 1] = f1(v)
      else
        row[#row + 1] = a == b and "X" or "N/A"
      end
    end
    drows[#drows + 1] = row
  end
  return rows, drows
end

local function busbw_of(r)
  local best
  for _, row in ipairs((r and r.rows) or {}) do
    if type(row.out_of_place) == "table" and (not best or row.size > best.size) then best = row end
  end
  return best and best.out_of_place.bus_bw
end

-- Each rank's first inter-node link in a parsed NCCL log ("NET/IB/3/GDRDMA").
local function net_links(nccl)
  local out = {}
  for _, l in ipairs((nccl and nccl.links) or {}) do
    local from = tonumber(l.from)
    if from and tostring(l.transport):match("^NET/") and not out[from] then out[from] = tostring(l.detail or l.transport) end
  end
  return out
end

local function count_links(nccl, transport)
  local n = 0
  for _, l in ipairs((nccl and nccl.links) or {}) do if l.transport == transport then n = n + 1 end end
  return n
end

-- ref nil (a pinned fault: no healthy run to compare): shown, never judged
local function nccl_cells(cells, m, nccl, ref)
  local function r(x) if ref then return x end return nil end
  local function net(x) return x and x.network and x.network ~= "" and x.network or "-" end
  if m.hosts >= 2 then cell(cells, "nccl", L("network"), net(nccl), r(net(ref))) end
  cell(cells, "nccl", L("P2P links"), count_links(nccl, "P2P/CUMEM") + count_links(nccl, "P2P/CUMEM/read"),
       r(count_links(ref, "P2P/CUMEM") + count_links(ref, "P2P/CUMEM/read")))
  cell(cells, "nccl", L("SHM links"), count_links(nccl, "SHM"), r(count_links(ref, "SHM")))
  local mine, theirs = net_links(nccl), net_links(ref)
  for k = 0, m.gpus - 1 do
    if mine[k] or theirs[k] then
      cell(cells, "nccl", L("rank %d network link", k), mine[k] or "-", r(theirs[k] or "-"),
           { rank = k, gpu = k, nic = m.nic_of[k] })
    end
  end
end

local function rank_rows(res)
  local out = {}
  for k = 0, 4095 do
    local r = res and res.ranks and res.ranks[k]
    if not r then break end
    local row = r.results and r.results[1]
    if type(row) == "table" and type(row.row) == "table" then row = row.row end
    out[k] = row or {}
  end
  return out
end

local function ranks_cells(cells, m, res, ref)
  local rows = {}
  local mine, theirs = rank_rows(res), rank_rows(ref)
  for r = 0, m.gpus - 1 do
    local a, b = mine[r] or {}, theirs[r] or {}
    if a.copy_gbs then cell(cells, "ranks", L("rank %d local copy", r), a.copy_gbs, b.copy_gbs, { rank = r, gpu = r }) end
    -- a rank's exchanges go out and come in through its own NIC
    if a.net_gbs then
      cell(cells, "ranks", L("rank %d <-> rank %d network", r, a.peer or -1), a.net_gbs, b.net_gbs,
           { rank = r, gpu = r, nic = m.nic_of[r] }, "net")
    end
    if a.net2_gbs then
      cell(cells, "ranks", L("rank %d <-> rank %d network", r, a.peer2 or -1), a.net2_gbs, b.net2_gbs,
           { rank = r, gpu = r, nic = m.nic_of[r] }, "net")
    end
    local function nf(x) return x and f1(x) or "-" end
    rows[#rows + 1] = { tostring(r), f1(a.copy_gbs), f1(b.copy_gbs), nf(a.net_gbs), nf(b.net_gbs), nf(a.net2_gbs),
                        nf(b.net2_gbs) }
  end
  return rows
end

--- Running the evidence --------------------------------------------------

local function gather(lab)
  -- the healthy machine: this one, or with a pinned fault (the run's own
  -- --fault: every call has it) the same preset as a what-if, which has none
  local pinned = lab.backend.fault and lab.backend.fault ~= ""
  local healthy = pinned and lab.topo{ machine = lab.backend.machine } or lab.topo()
  local m = facts(healthy)
  local fault, why = hidden_fault(lab, m)
  if not fault then return { error = why, m = m } end
  -- a drawn fault is added to each call; a rank's (straggler) only to the
  -- calls that run every rank: topo and copy are one process, no rank of it
  local F = not fault.pinned and fault.spec or nil
  local FM = fault.kind.target ~= "rank" and F or nil
  local cells = {}
  local ranks = m.gpus
  lab.progress(0.1, L("topology"))
  local topo = FM and lab.topo{ fault = FM } or lab.topo()
  local gpu_rows, nic_rows, peer_row = topo_cells(cells, topo, healthy, m.nic_of)
  local whatif = fault.pinned and lab.backend.machine or nil

  lab.progress(0.25, L("host and peer copies"))
  local function copy(tc, with_fault)
    return lab.copy(tc, { size = "2M", fault = with_fault and FM or nil })
  end
  -- the reference: the same copies on the healthy machine, or with a
  -- pinned fault (the run's own: every call has it) the median of this
  -- machine's copies
  local function measured(tc)
    local mx = matrix_of(copy(tc, true), tc)
    if not fault.pinned then return mx, matrix_of(copy(tc, false), tc) end
    return mx, median_of(mx)
  end
  local h2d, h2d_ref = measured("host_to_device_memcpy_ce")
  local d2d, d2d_ref
  if m.g0 >= 2 then d2d, d2d_ref = measured("device_to_device_memcpy_read_ce") end
  local copy_rows, d2d_rows = copy_cells(cells, h2d, h2d_ref, d2d, d2d_ref)

  lab.progress(0.5, L("all_reduce with NCCL_DEBUG=INFO"))
  local function bench(with_fault)
    return lab.bench("all_reduce", { b = "16M", e = "16M", ranks = ranks, fault = with_fault and F or nil,
                                     env = { NCCL_DEBUG = "INFO" } })
  end
  local b = bench(true)
  local b_ref = not fault.pinned and bench(false) or nil
  local bus, bus_ref = busbw_of(b), b_ref and busbw_of(b_ref) or nil
  cell(cells, "bench", L("all_reduce 16 MiB busbw"), bus, bus_ref)
  nccl_cells(cells, m, b.nccl, b_ref and b_ref.nccl)

  lab.progress(0.75, L("per-rank times"))
  local per_node = m.hosts >= 2 and m.g0 or 0
  local function ranks_run(with_fault, machine)
    return lab.spmd("scripts/ranks.lua", { ranks = ranks, per_node = per_node > 0 and per_node or nil,
                                           args = { "64", tostring(per_node) }, machine = machine,
                                           fault = with_fault and F or nil })
  end
  local rk = ranks_run(true)
  -- a what-if of the same preset has none of the run's faults
  local rk_ref = fault.pinned and ranks_run(false, lab.backend.machine) or ranks_run(false)
  local rank_table = ranks_cells(cells, m, rk, rk_ref)
  lab.progress(1.0, L("done"))
  return { m = m, fault = fault, cells = cells, gpu_rows = gpu_rows, nic_rows = nic_rows, peer_row = peer_row,
           copy_rows = copy_rows,
           d2d_rows = d2d_rows, bus = bus, bus_ref = bus_ref, nccl = b.nccl, nccl_ref = b_ref and b_ref.nccl,
           rank_table = rank_table, whatif = whatif }
end

local function show(lab, e)
  lab.table{ title = L("topo: GPUs (the PCIe link as it runs; NVLinks up; the NIC NCCL uses for it)"),
             columns = { L("GPU"), L("host"), L("PCIe"), L("NVLinks"), L("GDR"), L("nearest NIC") }, rows = e.gpu_rows }
  if #e.nic_rows > 0 then
    lab.table{ title = L("topo: NICs (as ibstat reads each port)"),
               columns = { L("NIC"), L("host"), L("name"), L("state"), L("rate Gb/s"), L("supports Gb/s"), L("GDR") },
               rows = e.nic_rows }
  end
  lab.table{ title = L("topo: peer access (this machine, the healthy reference)"),
             columns = { L("measure"), L("this machine"), L("reference") }, rows = { e.peer_row } }
  lab.table{ title = L("copy: host -> GPU, GB/s (this machine, the healthy reference)"),
             columns = { L("GPU"), L("this machine"), L("reference") }, rows = e.copy_rows }
  if #e.d2d_rows > 0 then
    local cols = { L("read by \\ from") }
    for g = 0, #e.d2d_rows - 1 do cols[#cols + 1] = "GPU" .. g end
    lab.table{ title = L("copy: peer reads GPU(row) <- GPU(column), GB/s"), columns = cols, rows = e.d2d_rows }
  end
  lab.table{ title = L("bench: all_reduce 16 MiB over %d ranks", e.m.gpus),
             columns = { L("measure"), L("this machine"), L("reference") },
             rows = { { L("busbw GB/s"), f1(e.bus), f1(e.bus_ref or e.bus) } } }
  local nrows = {}
  for _, c in ipairs(e.cells) do
    if c.tool == "nccl" then nrows[#nrows + 1] = { c.label, tostring(c.value), tostring(c.ref) } end
  end
  lab.table{ title = L("nccl: what NCCL's INFO log says (this run, the reference run)"),
             columns = { L("line"), L("this machine"), L("reference") }, rows = nrows }
  lab.table{ title = L("ranks: each rank's local copy, and its exchanges with the next node (A: the same local " ..
                       "index, B: the next one), GB/s"),
             columns = { L("rank"), L("copy"), L("copy ref"), L("network A"), L("A ref"), L("network B"), L("B ref") },
             rows = e.rank_table }
end

--- Judging the diagnosis -------------------------------------------------

local function tag(v)
  local asked = type(checks) == "table" and checks._asked
  if type(asked) == "function" then v.question = asked() end
  return v
end

local function verdict(ok, msg, saw, wanted, where)
  return tag{ ok = ok, msg = msg, saw = saw, wanted = wanted, where = where }
end

local function waiting(id, what, where)
  return checks.equals{ value = nil, expected = "?", answer = true, what = what, where = where }
end

local WORDS = { gpu = "GPU", nic = "NIC", rank = "rank" }

-- Does a cell concern this target (kind, index)?
local function concerns(c, target, index)
  local a = c.about
  if not a then return false end
  if target == "gpu" then
    if a.gpu == index then return true end
    if a.gpus then return a.gpus[1] == index or a.gpus[2] == index end
    return false
  end
  if target == "nic" then return a.nic == index end
  if target == "rank" then return a.rank == index end
  return false
end

-- Why a named component is not the one, from this machine's tables (never
-- which one is): what the tables say about the component named.
local function not_it(e, comp)
  local bad = {}
  for _, c in ipairs(e.cells) do
    if c.bad and c.kind then bad[c.kind] = true end
  end
  local single = e.m.hosts < 2
  local why = {
    nvlink = L("topo shows every GPU with the NVLinks it is wired with"),
    p2p = bad.peer and L("peer access is lost only between GPUs whose path changed: is access the cause, or the " ..
                          "path under it?")
          or L("topo shows peer access on wherever the wiring allows it"),
    gdr = L("topo shows GPUDirect RDMA on for every NIC"),
    straggler = L("every rank's local copy runs at the reference's speed"),
    pcie = L("every GPU's PCIe link reads as wired and its host copy matches the reference"),
    nic = single and L("every NIC is ACTIVE at its rate, and on one node NCCL sends nothing through them")
          or bad.net and L("every NIC is ACTIVE at its rate: where a rank's exchanges are slow, look at what else " ..
                           "its traffic crosses")
          or L("every NIC is ACTIVE at its rate and no NIC pair is below the reference"),
    socket = single and L("this machine has one node: NCCL uses no network transport here")
             or L("NCCL's log says which network it uses, and it is the reference's"),
  }
  return why[comp] or L("it does not explain the numbers that differ from the reference")
end

local function judge(lab, e)
  local where = L("the step's tables: this machine beside the healthy reference")
  local fault, kind = e.fault, e.fault.kind
  local out = {}

  local a = lab.answer("component")
  if a == nil then
    out[#out + 1] = waiting("component", L("the component at fault"), where)
  else
    local comp = component_of(a)
    if not comp then
      out[#out + 1] = verdict(false, L("the component: '%s' is not one of nvlink, p2p, gdr, straggler, pcie, nic, " ..
                                       "socket", trim(a)), trim(a), L("one of the names the question lists"), where)
    elseif comp ~= kind.component then
      out[#out + 1] = verdict(false, L("the component: %s is not it - %s. Which part do the numbers that differ " ..
                                       "from the reference share?", comp, not_it(e, comp)), comp,
                              L("the component the evidence points at"), where)
    else
      out[#out + 1] = verdict(true, L("the component: %s is right", comp), comp, comp, where)
    end
  end

  local w = lab.answer("which")
  if w == nil then
    out[#out + 1] = waiting("which", L("which GPU, NIC or rank"), where)
  else
    local n = math.tointeger(tonumber(trim(w)))
    local none = ({ none = true, ["-"] = true, all = true, ["n/a"] = true })[trim(w):lower()]
    if kind.target == nil then
      if none then
        out[#out + 1] = verdict(true, L("which: none - the fault is the whole machine's, right"), trim(w), trim(w), where)
      else
        out[#out + 1] = verdict(false, L("which: %s - but the numbers that differ from the reference are not " ..
                                         "confined to one GPU, NIC or rank; look whether they concern one at all",
                                         trim(w)), trim(w), L("the index the evidence points at, or none"), where)
      end
    elseif none or not n then
      out[#out + 1] = verdict(false, L("which: '%s' - the numbers that differ from the reference concern one " ..
                                       "device or rank: give its index as the tables number it", trim(w)), trim(w),
                              L("an index"), where)
    elseif n ~= fault.arg then
      out[#out + 1] = verdict(false, L("which: %d is not the one - the numbers that differ from the reference " ..
                                       "share one index, and it is not %d", n, n), tostring(n),
                              L("the index every differing number shares"), where)
    else
      out[#out + 1] = verdict(true, L("which: %s %d is right", WORDS[kind.target], n), tostring(n), tostring(n), where)
    end
  end

  local t, v = lab.answer("tool"), nil
  if t == nil then out[#out + 1] = waiting("tool", L("the tool your evidence comes from"), where) end
  v = lab.answer("value")
  if v == nil then out[#out + 1] = waiting("value", L("the number (or word) that proves it"), where) end
  if t ~= nil and v ~= nil then
    local tool = trim(t):lower()
    local val = trim(v)
    local num = tonumber((val:gsub("%s*[GMgm]?[Bb]/s$", ""):gsub("%s*Gb/s$", "")))
    if not TOOLS[tool] then
      out[#out + 1] = verdict(false, L("the evidence: '%s' is not one of the lab's tools (topo, copy, bench, nccl, " ..
                                       "ranks)", tool), tool, L("a tool name"), where)
    else
      local function same(c)
        if num and type(c.value) == "number" then
          return math.abs(num - c.value) <= math.max(0.051, 0.005 * math.abs(c.value))
        end
        return tostring(c.value):lower() == val:lower()
      end
      local hit_bad, hit_other, hit_good
      for _, c in ipairs(e.cells) do
        if c.tool == tool and same(c) then
          if c.bad and (kind.target == nil or concerns(c, kind.target, fault.arg)) then hit_bad = c
          elseif c.bad then hit_other = hit_other or c
          else hit_good = hit_good or c end
        end
      end
      if hit_bad then
        out[#out + 1] = verdict(true, L("the evidence: %s in %s (%s; the reference reads %s) - right", val, tool,
                                        hit_bad.label, tostring(hit_bad.ref)), val, val, where)
      elseif hit_other then
        out[#out + 1] = verdict(false, L("the evidence: %s in %s (%s) differs from the reference, but it does not " ..
                                         "point at the part at fault by itself: quote a number that concerns it",
                                         val, tool, hit_other.label), val,
                                L("a number about the part at fault"), where)
      elseif hit_good then
        out[#out + 1] = verdict(false, L("the evidence: %s in %s (%s) is what the healthy reference reads too: " ..
                                         "it shows nothing wrong", val, tool, hit_good.label), val,
                                L("a number that differs from the reference"), where)
      else
        -- the number is there, under another tool's table (the ranks
        -- table has a column named copy): say where, not what it means
        local elsewhere
        for _, c in ipairs(e.cells) do
          if c.tool ~= tool and same(c) then elsewhere = c.tool; break end
        end
        if elsewhere then
          out[#out + 1] = verdict(false, L("the evidence: %s is in the %s table, not in %s's: the tool is the table "
                                           .. "the number comes from", val, elsewhere, tool), val,
                                  L("a value from the %s table", tool), where)
        else
          out[#out + 1] = verdict(false, L("the evidence: no %s number of this run reads %s: quote it as the table " ..
                                           "shows it", tool, val), val, L("a value from the %s table", tool), where)
        end
      end
    end
  end
  return out
end

--- Step 2: artifacts -----------------------------------------------------

local ARTIFACTS = {
  { file = "artifacts/a1-nccl-init.log", id = "a1" },
  { file = "artifacts/a2-watchdog.log", id = "a2" },
  { file = "artifacts/a3-ib-error.log", id = "a3" },
  { file = "artifacts/a4-truncated.log", id = "a4" },
  { file = "artifacts/a5-flight.txt", id = "a5" },
}

-- The causes, each with the words a learner may use for it.
local CAUSES = {
  socket = { "socket", "net/socket", "sockets", "no ib", "ib not loaded", "tcp" },
  desync = { "desync", "mismatch", "collective mismatch", "missing collective", "a rank skipped", "skipped" },
  link = { "link", "cable", "port", "ib link", "retry exceeded", "network", "nic" },
  size = { "size", "size mismatch", "count", "count mismatch", "different sizes", "shape" },
  straggler = { "straggler", "slow rank", "hang in compute", "stuck rank", "late rank" },
}
local ARTIFACT_CAUSE = { a1 = "socket", a2 = "desync", a3 = "link", a4 = "size", a5 = "straggler" }

local function cause_of(answer)
  local a = trim(answer):lower()
  for id, words in pairs(CAUSES) do
    for _, w in ipairs(words) do if a == w then return id end end
  end
  return nil
end

return {
  title = "Diagnose the cluster",
  summary = "One hidden fault: find it with topo, copy, bench, the NCCL log and per-rank times; read real logs",
  backends = "sim (a hidden fault on every preset); the log reading on any machine",
  ranks = 1,
  steps = {
    {
      id = "find",
      title = "Find the hidden fault",
      text = "steps/01-find.md",
      hints = {
        "Read every table against its reference column first: which numbers differ at all?",
        "Then ask what the differing numbers share: one GPU, one NIC, one rank - or none (the whole machine).",
        "A topology row that differs names a part; a measurement that differs proves it costs something. " ..
          "NCCL's log tells which transport it chose.",
      },
      questions = {
        { id = "component", ask = "Which component is at fault (nvlink, p2p, gdr, straggler, pcie, nic, socket)?" },
        { id = "which", ask = "Which GPU, NIC or rank (its index as the tables number it; none for the whole machine)?" },
        { id = "tool", ask = "Which tool shows your evidence (topo, copy, bench, nccl, ranks)?" },
        { id = "value", ask = "The number (or word) in that tool's table that proves it, as the table shows it" },
      },
      run = function(lab)
        if not lab.backend.simulated then return { unavailable = true } end
        local e = gather(lab)
        if e.error then return e end
        show(lab, e)
        return e
      end,
      check = function(lab, e)
        if not e or e.unavailable then
          return { ok = false, unavailable = true,
                   msg = L("the hidden fault is the sim's: run this step with --backend sim (any preset)"),
                   saw = L("a real machine"), wanted = L("the sim"), where = L("lab 12 text") }
        end
        if e.error then
          return { ok = false, msg = e.error, saw = tostring(lab.backend.fault), wanted = L("a fault this lab knows"),
                   where = L("mgpulab --help (--fault)") }
        end
        return judge(lab, e)
      end,
    },
    {
      id = "artifacts",
      title = "Read the logs of five incidents",
      text = "steps/02-artifacts.md",
      hints = {
        "Read each log from its first line: what did NCCL choose, what did it wait for, who reported first?",
        "A watchdog timeout says where a rank waited, not why: the flight recorder or the other ranks' logs do.",
      },
      questions = {
        { id = "a1", ask = "Incident 1 (a1-nccl-init.log): the cause, in a word (socket, desync, link, size, straggler)?" },
        { id = "a2", ask = "Incident 2 (a2-watchdog.log): the cause?" },
        { id = "a3", ask = "Incident 3 (a3-ib-error.log): the cause?" },
        { id = "a4", ask = "Incident 4 (a4-truncated.log): the cause?" },
        { id = "a5", ask = "Incident 5 (a5-flight.txt): the cause?" },
      },
      run = function(lab)
        for _, a in ipairs(ARTIFACTS) do
          lab.log(L("===== %s =====", a.file))
          for line in lab.read(a.file):gmatch("[^\n]+") do lab.log(line) end
        end
        return true
      end,
      check = function(lab)
        local out = {}
        for _, a in ipairs(ARTIFACTS) do
          local ans = lab.answer(a.id)
          local where = L("%s (the log pane)", a.file)
          if ans == nil then
            out[#out + 1] = waiting(a.id, L("incident %s", a.id:sub(2)), where)
          else
            local c = cause_of(ans)
            if not c then
              out[#out + 1] = verdict(false, L("incident %s: '%s' is not one of socket, desync, link, size, straggler",
                                               a.id:sub(2), trim(ans)), trim(ans), L("one of the five causes"), where)
            elseif c ~= ARTIFACT_CAUSE[a.id] then
              out[#out + 1] = verdict(false, L("incident %s: %s does not fit what the log shows - read it again from " ..
                                               "the first line that is not routine", a.id:sub(2), c), c,
                                      L("the cause the log shows"), where)
            else
              out[#out + 1] = verdict(true, L("incident %s: %s is right", a.id:sub(2), c), c, c, where)
            end
          end
        end
        return out
      end,
    },
  },
}
