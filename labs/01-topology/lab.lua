-- labs/01-topology/lab.lua - the note's practice 1 (nvidia-smi topo -m):
-- read your machine's topology and answer questions about it; the answers
-- are computed from what lab.topo() discovered, never hard-coded.

-- Path types from closest to farthest (nvidia-smi's legend).
local RANK = { X = 0, PIX = 1, PXB = 2, PHB = 3, NODE = 4, SYS = 5, NET = 6 }
local function path_rank(p)
  if type(p) ~= "string" then return 99 end
  if p:match("^NV%d+") then return 0.5 end
  return RANK[p] or 99
end

local function gpus(topo) return (topo and topo.gpus) or {} end
local function nics(topo) return (topo and topo.nics) or {} end

-- The matrix cell between two labels' indices (0-based: GPUs first, then NICs).
local function cell(topo, i, j)
  local rows = topo and topo.matrix and topo.matrix.rows
  return rows and rows[i + 1] and rows[i + 1][j + 1] or nil
end

local function gpu_gpu(topo, a, b) return cell(topo, a, b) end
local function gpu_nic(topo, g, n) return cell(topo, g, #gpus(topo) + n) end

-- "0-55,112-167" -> 112
local function count_cpus(list)
  if type(list) ~= "string" then return nil end
  local n = 0
  for part in list:gmatch("[^,]+") do
    local a, b = part:match("^%s*(%d+)%s*%-%s*(%d+)%s*$")
    if a then n = n + (tonumber(b) - tonumber(a) + 1)
    elseif part:match("^%s*%d+%s*$") then n = n + 1
    elseif part:match("%.%.%.") then return nil end
  end
  return n
end

-- The GPU0-GPU1 link, or nil with one GPU (or GPU1 on another host).
local function link01(topo)
  local g = gpus(topo)
  if #g < 2 or g[1].host ~= g[2].host then return nil end
  return gpu_gpu(topo, 0, 1)
end

-- GPUs in GPU0's NVLink domain, GPU0 included.
local function nvdomain(topo)
  local g, n = gpus(topo), 1
  for j = 1, #g - 1 do
    local l = gpu_gpu(topo, 0, j)
    if type(l) == "string" and l:match("^NV%d+") then n = n + 1 end
  end
  return n
end

-- The closest NIC path type of GPU g on its host (nil without a NIC).
local function best_nic_path(topo, g)
  local best
  for n = 0, #nics(topo) - 1 do
    local p = gpu_nic(topo, g, n)
    if p and (not best or path_rank(p) < path_rank(best)) then best = p end
  end
  return best
end

-- The topology with its NICs numbered the other way round (NIC0 is the old
-- last NIC): the same machine, as a host whose NICs enumerate in another
-- order. A nearest_nic that picks NIC g for GPU g because they happen to
-- pair up on a DGX must fail here.
local function renumber_nics(topo)
  local ng, nn = #gpus(topo), #nics(topo)
  local function old(j) return j <= ng and j or ng + (nn - (j - ng)) + 1 end   -- new column j -> old column
  local out = { gpus = topo.gpus, nics = {}, matrix = { labels = {}, rows = {} }, peer_access = topo.peer_access,
                machine = topo.machine }
  for k = 1, nn do
    local n = {}
    for key, val in pairs(topo.nics[nn - k + 1]) do n[key] = val end
    n.index = k - 1
    out.nics[k] = n
  end
  local rows = topo.matrix.rows
  for i = 1, ng + nn do
    out.matrix.labels[i] = i <= ng and topo.matrix.labels[i] or ("NIC" .. (i - ng - 1))
    local row = {}
    for j = 1, ng + nn do row[j] = rows[old(i)] and rows[old(i)][old(j)] end
    out.matrix.rows[i] = row
  end
  return out
end

-- How a wrong nearest_nic chose, seen over every GPU of a topology (each
-- entry: chosen[g] = the NIC it returned), or nil.
local function choice_pattern(topo, chosen)
  local nn, all = #nics(topo), { index = true, first = true, far = true, alpha = true }
  if nn < 2 then return nil end
  for _, g in ipairs(gpus(topo)) do
    local nic = math.tointeger(chosen[g.index])
    local real = nic and gpu_nic(topo, g.index, nic)
    if nic ~= g.index % nn then all.index = false end
    if nic ~= 0 then all.first = false end
    for n = 0, nn - 1 do
      local p = gpu_nic(topo, g.index, n)
      if path_rank(p) > path_rank(real) then all.far = false end
      if tostring(p) < tostring(real) then all.alpha = false end
    end
  end
  return all.index and L("it takes NIC g for GPU g: the index says nothing about the PCIe tree - choose the NIC by its "
      .. "path, not by its index")
    or all.first and L("it keeps NIC0 for every GPU: compare every NIC's path and keep the closest")
    or all.far and all.alpha and L("it keeps the farthest NIC of every GPU, which here is also the alphabetical first "
      .. "path of its row: closest first is PIX, PXB, PHB, NODE, SYS, then NET - not alphabetical order, and not the "
      .. "comparison the wrong way round")
    or all.far and L("it keeps the farthest NIC of every GPU: is the comparison the wrong way round?")
    or all.alpha and L("it keeps the alphabetical first path of each row: closest first is PIX, PXB, PHB, NODE, SYS, "
      .. "not alphabetical order")
    or nil
end

-- nearest_nic(topo, g) for every GPU of one topology: nil when right, else
-- one sentence on the first GPU it gets wrong - what it returned, why that is
-- not the nearest, never which NIC is - and a word for the kind of fault.
-- `on` names the machine.
local function judge_nearest(fn, topo, on)
  local chosen, paths = {}, {}
  local nn = #nics(topo)
  for _, g in ipairs(gpus(topo)) do
    local fine, nic, path = pcall(fn, topo, g.index)
    if not fine then return L("it raised an error for GPU%d%s: %s", g.index, on, tostring(nic)), "error" end
    chosen[g.index], paths[g.index] = nic, path
  end
  for _, g in ipairs(gpus(topo)) do
    local gi, path = g.index, paths[g.index]
    local want = best_nic_path(topo, gi)
    local where = L(" for GPU%d%s", gi, on)
    local nic = math.tointeger(chosen[gi])
    if want == nil then
      if chosen[gi] ~= nil then return L("it returned NIC %s%s, but there is no NIC: return nil, nil", tostring(chosen[gi]), where), "none" end
    elseif nic == nil then
      return L("it returned %s as the NIC%s: return the NIC's 0-based index (a whole number) and its path",
        tostring(chosen[gi]), where), "type"
    elseif nic < 0 or nic >= nn then
      return L("it returned NIC %d%s, but the NICs are NIC0 .. NIC%d (0-based)", nic, where, nn - 1), "range"
    else
      local real = gpu_nic(topo, gi, nic)
      if tostring(path) ~= tostring(real) then
        local left = nic >= 1 and gpu_nic(topo, gi, nic - 1)
        if left and tostring(path) == tostring(left) then
          return L("it returned NIC %d with path %s%s, but %s is the path of NIC %d: the index and the "
            .. "column it read are one apart - NIC n (0-based) is row[#topo.gpus + n + 1]", nic, tostring(path), where,
            tostring(path), nic - 1), "apart"
        end
        return L("it returned NIC %d with path %s%s, but that is not the path of NIC %d: its cell in row "
          .. "GPU%d says %s - return the path of the NIC you chose", nic, tostring(path), where, nic, gi, tostring(real)), "path"
      end
      if path_rank(real) > path_rank(want) then
        local why = choice_pattern(topo, chosen)
        return L("it chose NIC %d%s, whose path is %s, but GPU%d has a closer NIC%s", nic, where,
                             tostring(real), gi, why and (" - " .. why) or ""), "closer " .. (why or "")
      end
    end
  end
  return nil
end

-- The NICs of a host that sit on a GPU's own PCIe switch (PIX to one of its
-- GPUs): the ones NCCL pairs with GPUs for GPUDirect RDMA. Counted by the
-- path, not the list: a real DGX H100 lists about 12 mlx5 ports - its 8
-- compute NICs, one beside each GPU, and the storage and in-band management
-- ports of two dual-port cards, which hang off the CPUs (issue 27).
local function host_gpu_nics(topo, host)
  local n, g = 0, gpus(topo)
  for k, nic in ipairs(nics(topo)) do
    if (nic.host or 0) == host then
      for i, gpu in ipairs(g) do
        if (gpu.host or 0) == host and gpu_nic(topo, i - 1, k - 1) == "PIX" then n = n + 1 break end
      end
    end
  end
  return n
end

local function f2(x) return type(x) == "number" and string.format("%.1f", x) or tostring(x) end

local function matrix_table(lab, topo)
  local g = gpus(topo)
  local cols = { "" }
  local labels = (topo.matrix and topo.matrix.labels) or {}
  for _, l in ipairs(labels) do cols[#cols + 1] = l end
  local rows = {}
  for i, l in ipairs(labels) do
    local r = { l }
    for j = 1, #labels do r[#r + 1] = tostring(cell(topo, i - 1, j - 1) or "") end
    rows[#rows + 1] = r
  end
  lab.table{ title = L("topo -m: %s", topo.banner or L("this machine")), columns = cols, rows = rows }
  return #g
end

return {
  title    = "Topology",
  summary  = "nvidia-smi topo -m for your machine: links, NUMA, CPUs, PCIe, NICs, peer access, NCCL XML",
  backends = "cuda (1..N GPUs; the questions adapt to one GPU) and sim (any preset or NCCL XML)",
  ranks    = 1,
  steps = {
    {
      id = "matrix", title = "The link matrix",
      text = "steps/01-matrix.md",
      hints = {
        "The cell in row GPU0, column GPU1 of the matrix (topology pane 1 or the results table).",
        "NV# means # bonded NVLinks. The log pane (5) prints this machine's rate per NVLink; the peak is that rate times the links.",
        "A PCIe path (PIX, PXB, PHB, NODE, SYS) runs at most at the PCIe link rate the log pane prints.",
        "With one GPU: link01 = none, nvdomain = 1, and peak01 is GPU0's PCIe link (the 'pcie' column of step 2).",
      },
      questions = {
        { id = "link01",   ask = "Which link joins GPU0 and GPU1 (NV18, PIX, NODE, SYS, ...; none with one GPU)?" },
        { id = "nvdomain", ask = "How many GPUs share GPU0's NVLink domain, GPU0 included (1 without NVLink)?" },
        { id = "peak01",   ask = "The nominal one-direction peak of that link in GB/s (one GPU: its PCIe link)?" },
      },
      run = function(lab)
        local topo = lab.topo()
        matrix_table(lab, topo)
        local l = link01(topo)
        local p, src = lab.peak(l or "PCIe")
        -- the ingredients of the peak, not the answers: the per-link rates
        local nv1, nvsrc = lab.peak("NV1")
        local pcie = lab.peak("PCIe")
        lab.log(L("link rates of this machine: NVLink %s; GPU0's PCIe link %s",
                  nv1 and L("%s GB/s per link per direction", f2(nv1)) or L("none (%s)", tostring(nvsrc)),
                  pcie and L("%s GB/s per direction", f2(pcie)) or L("unknown")))
        lab.record("link", l or "none")
        if p then lab.record("peak_gbs", p) end
        lab.record("gpus", #gpus(topo))
        return { topo = topo, link = l, peak = p, src = src }
      end,
      check = function(lab, r)
        return {
          checks.equals{ value = lab.answer("link01"), expected = r.link or "none", what = L("link GPU0-GPU1"),
                         where = L("topology pane (1): row GPU0, column GPU1"), answer = true },
          checks.equals{ value = lab.answer("nvdomain"), expected = nvdomain(r.topo), what = L("GPUs in GPU0's NVLink domain"),
                         where = L("topology pane (1): the NV# cells of row GPU0, plus GPU0"), answer = true },
          checks.close{ value = lab.answer("peak01"), expected = r.peak, rtol = 0.05, unit = "GB/s",
                        what = r.link and L("peak of the GPU0-GPU1 link") or L("peak of GPU0's PCIe link"), answer = true,
                        where = L("the matrix cell's link and the per-link rates in the log pane (5)") },
        }
      end,
    },
    {
      id = "affinity", title = "NUMA, CPU affinity, PCIe and NICs",
      text = "steps/02-affinity.md",
      exercise = "nearest_nic.lua",
      hints = {
        "The NIC columns come after the GPU columns in topo.matrix.rows: NIC n of GPU g is rows[g + 1][#topo.gpus + n + 1].",
        "Closest first: PIX, PXB, PHB, NODE, SYS (then NET). Keep the NIC with the closest path.",
        "numa0 and cpus0 are in the GPU table: a range a-b holds b - a + 1 CPUs, so '0-3,8-11' is 4 + 4.",
      },
      questions = {
        { id = "numa0", ask = "Which NUMA node is GPU0 attached to?" },
        { id = "cpus0", ask = "How many logical CPUs are in GPU0's CPU affinity list?" },
        { id = "nics",  ask = "How many of this host's NICs sit on a GPU's own PCIe switch (PIX to a GPU)?" },
      },
      run = function(lab)
        local topo = lab.topo()
        local rows = {}
        for _, g in ipairs(gpus(topo)) do
          rows[#rows + 1] = { "GPU" .. g.index, g.busid, g.name, g.numa, g.cpulist, f2(g.pcie_gbs), g.nvlinks }
        end
        lab.table{ title = L("GPUs"), columns = { L("gpu"), L("PCI bus id"), L("name"), L("NUMA"), L("CPU affinity"), L("PCIe GB/s"), L("NVLinks") },
                   rows = rows }
        local nrows = {}
        for _, n in ipairs(nics(topo)) do
          nrows[#nrows + 1] = { "NIC" .. n.index, n.name, n.busid, n.numa, f2(n.speed_gbps) .. " Gbit/s", n.gdr and "yes" or "no" }
        end
        lab.table{ title = L("NICs"), columns = { L("nic"), L("name"), L("PCI bus id"), L("NUMA"), L("speed"), L("GPUDirect RDMA") }, rows = nrows }
        local ok, fn = pcall(lab.load, lab.exercise)
        -- a machine every learner has, for faults this one may not show: an
        -- 8-GPU DGX whose NICs pair up with the GPUs, and the same with its
        -- NICs numbered the other way round
        local dgx = lab.topo{ machine = "dgx-h100" }
        return { topo = topo, ok = ok, fn = fn, dgx = dgx }
      end,
      check = function(lab, r)
        local topo, g0 = r.topo, gpus(r.topo)[1]
        local v = {
          checks.equals{ value = lab.answer("numa0"), expected = g0 and g0.numa, what = L("GPU0's NUMA node"),
                         where = L("results pane (3), table GPUs, column NUMA"), answer = true },
          checks.equals{ value = lab.answer("cpus0"), expected = g0 and count_cpus(g0.cpulist), what = L("CPUs local to GPU0"),
                         where = L("results pane (3), table GPUs, column CPU affinity"), answer = true },
          checks.equals{ value = lab.answer("nics"), expected = host_gpu_nics(topo, g0 and g0.host or 0),
                         what = L("NICs of this host on a GPU's own PCIe switch (PIX)"),
                         where = L("topology pane (1): the NIC columns, a PIX cell in a GPU's row"), answer = true },
        }
        -- the exercise: nearest_nic(topo, g) for every GPU
        if not r.ok or type(r.fn) ~= "function" then
          v[#v + 1] = { ok = false, msg = L("nearest_nic.lua must return a function(topo, gpu): %s", tostring(r.ok and type(r.fn) or r.fn)),
                        saw = L("no function"), wanted = "return function(topo, g) ... end", where = L("your nearest_nic.lua") }
          return v
        end
        local rows = {}
        for _, g in ipairs(gpus(topo)) do
          local fine, nic, path = pcall(r.fn, topo, g.index)
          local real = fine and math.tointeger(nic) and gpu_nic(topo, g.index, math.tointeger(nic)) or nil
          local verdict = not fine and L("error") or (real == nil and (best_nic_path(topo, g.index) and L("no such NIC") or "-"))
            or path_rank(real) > path_rank(best_nic_path(topo, g.index)) and L("a closer NIC exists")
            or tostring(path) ~= tostring(real) and L("not its path") or L("closest")
          rows[#rows + 1] = { "GPU" .. g.index, tostring(fine and nic or L("error")), tostring(fine and path or ""),
                              tostring(real or "-"), verdict }
        end
        lab.table{ title = "nearest_nic.lua", columns = { L("gpu"), L("your NIC"), L("your path"), L("its real path"), L("verdict") }, rows = rows }
        local machines = {
          { topo = topo, on = "", where = L("topology pane (1): your GPU's row, NIC columns") },
          { topo = r.dgx, on = L(" on the SIMULATED dgx-h100"), where = "mgpulab topo --machine dgx-h100" },
          { topo = renumber_nics(r.dgx), on = L(" on the SIMULATED dgx-h100 with its NICs numbered the other way round "
              .. "(NIC0 is its NIC7)"), where = L("mgpulab topo --machine dgx-h100, NIC columns read right to left") },
        }
        local faults, seen = {}, {}
        for _, m in ipairs(machines) do
          local why, kind = judge_nearest(r.fn, m.topo, m.on)
          if why and not seen[kind] then                   -- each kind of fault once, where it shows first
            seen[kind] = true
            faults[#faults + 1] = { why = why, where = m.where }
          end
        end
        if #faults == 0 then
          v[#v + 1] = { ok = true, msg = L("nearest_nic.lua picks the closest NIC of every GPU, here and on a DGX whose NICs "
            .. "are numbered either way"), saw = L("the closest NIC for every GPU"), wanted = L("the closest NIC for every GPU"),
            where = L("results pane (3), table nearest_nic.lua") }
        else
          local whys = {}
          for _, f in ipairs(faults) do whys[#whys + 1] = f.why end
          v[#v + 1] = { ok = false, msg = L("nearest_nic.lua: %s", table.concat(whys, L("; and "))),
            saw = faults[1].why, wanted = L("for every GPU, the 0-based index of a NIC with the closest path in its row, "
              .. "and that path"), where = L("%s; results pane (3), table nearest_nic.lua", faults[1].where) }
        end
        return v
      end,
    },
    {
      id = "peer", title = "Peer access",
      text = "steps/03-peer.md",
      hints = { "The peer-access matrix is below the link matrix in the topology pane; count the 'no' cells off the diagonal.",
                "Ordered pairs: GPU0 -> GPU1 and GPU1 -> GPU0 count twice. With one GPU the answer is 0." },
      questions = { { id = "nopeer", ask = "How many ordered GPU pairs of this host (i -> j, i != j) have NO peer access?" } },
      run = function(lab)
        local topo = lab.topo()
        local g = gpus(topo)
        local cols, rows, none = { "" }, {}, 0
        for j = 1, #g do cols[#cols + 1] = "GPU" .. (j - 1) end
        for i = 1, #g do
          local r = { "GPU" .. (i - 1) }
          for j = 1, #g do
            local v = topo.peer_access and topo.peer_access[i] and topo.peer_access[i][j]
            if i == j then r[#r + 1] = "X"
            else
              r[#r + 1] = v and "yes" or "no"
              if not v and g[i].host == g[1].host and g[j].host == g[1].host then none = none + 1 end
            end
          end
          rows[#rows + 1] = r
        end
        lab.table{ title = L("peer access (cudaDeviceCanAccessPeer)"), columns = cols, rows = rows }
        lab.record("no_peer_pairs", none)
        return { none = none, topo = topo }
      end,
      check = function(lab, r)
        return checks.equals{ value = lab.answer("nopeer"), expected = r.none, what = L("ordered GPU pairs without peer access"),
                              where = L("results pane (3), table 'peer access'"), answer = true }
      end,
    },
    {
      id = "xml", title = "Export the topology as NCCL XML",
      text = "steps/04-xml.md",
      run = function(lab)
        local topo, xml = lab.topo(), lab.topo_xml()
        local found = {}
        for attrs in tostring(xml):gmatch("<gpu%s([^>]*)>") do found[#found + 1] = { op = "gpu", attrs = attrs } end
        lab.log(L("NCCL topology XML: %d bytes, %d <gpu> elements", #tostring(xml), #found))
        return { topo = topo, xml = tostring(xml), found = found }
      end,
      check = function(lab, r)
        local v = {
          checks.equals{ value = r.xml:match("^%s*<system version=\"1\">") and "yes"
                           or r.xml:match("^%s*<mgpulab%-cluster version=\"1\">") and "yes" or "no",
                         expected = "yes", what = L("the XML starts with NCCL's <system version=\"1\">"),
                         where = L("the exported text (mgpulab topo --xml)") },
          checks.count{ events = r.found, op = "gpu", expected = #gpus(r.topo), what = L("<gpu> elements in the XML"),
                        where = L("the exported text vs the topology pane (1)") },
        }
        for _, g in ipairs(gpus(r.topo)) do
          local bus = tostring(g.busid or "?"):lower()
          v[#v + 1] = checks.equals{ value = r.xml:lower():find("busid=\"" .. bus .. "\"", 1, true) and "present" or "missing",
                                     expected = "present", what = L("GPU%d's PCI bus id %s in the XML", g.index, bus),
                                     where = L("the exported text") }
        end
        return checks.all(v)
      end,
    },
  },
}
