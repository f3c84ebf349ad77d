-- labs/07-crossnode/lab.lua - the note's practice 7: the same collective
-- inside a node and between nodes; the transport of every peer read from
-- NCCL's log of the learner's own run; GPUDirect RDMA on and off; a
-- hierarchical all-reduce over split communicators; SHARP as a what-if;
-- fail-stop and resuming from a checkpoint.

local MiB = 1024 * 1024

local function f2(x) return type(x) == "number" and string.format("%.2f", x) or "-" end
local function f1(x) return type(x) == "number" and string.format("%.1f", x) or "-" end

-- Hosts in the topology and GPUs of host 0.
local function hosts_of(topo)
  local seen, nh, g0 = {}, 0, 0
  for _, g in ipairs(topo.gpus or {}) do
    if not seen[g.host] then seen[g.host] = true; nh = nh + 1 end
    if g.host == 0 then g0 = g0 + 1 end
  end
  return math.max(nh, 1), math.max(g0, 1)
end

local function nics_of_host0(topo)
  local n = 0
  for _, x in ipairs(topo.nics or {}) do if x.host == 0 then n = n + 1 end end
  return n
end

-- What "one node" and "two nodes" mean on this backend (docs/labs.md):
-- intra = one node's GPUs; across = both nodes' GPUs; pair = 2 ranks, one
-- per node. A nil run cannot be made here; `why` says what to do instead.
local function plan(lab)
  local b, topo = lab.backend, lab.topo()
  local nh, G = hosts_of(topo)
  local p = { G = G, nodes = nh, nics = nics_of_host0(topo) }
  if b.simulated and nh >= 2 then
    p.kind = "sim2"
    p.intra, p.across, p.pair = { ranks = G }, { ranks = 2 * G }, { ranks = 2, per_node = 1 }
    p.node_size = G
    p.what = L("SIMULATED %s: %d nodes of %d GPUs, NDR InfiniBand between them", b.machine, nh, G)
  elseif b.simulated then
    p.kind = "sim1"
    p.intra = G >= 2 and { ranks = G } or nil
    p.node_size = math.max(1, G // 2)
    p.what = G == 1 and L("SIMULATED %s: ONE node of %d GPU", b.machine, G)
             or L("SIMULATED %s: ONE node of %d GPUs", b.machine, G)
    p.why = L("this machine has one node, so nothing crosses a network here; run the lab on two: " ..
              "mgpulab run 7 --backend sim --machine 2x-dgx-h100")
  elseif b.launcher == "mpirun" or b.launcher == "srun" then
    p.kind = "cluster"
    p.intra = { ranks = G, launcher = "local" }
    p.across, p.pair = { ranks = 2 * G }, { ranks = 2 }
    p.node_size = G
    p.what = L("%s across your hosts (%d GPUs per node assumed from this host)", b.launcher, G)
    p.why = L("the pair run needs one rank per node: put '--map-by ppr:1:node' (mpirun) or " ..
              "'--ntasks-per-node=1' (srun) in MGPU_LAUNCHER_ARGS for it")
  else
    p.kind = "emulated"
    p.intra = G >= 2 and { ranks = G, launcher = "local" } or nil
    p.across = { ranks = math.max(2, math.min(G, 8)), launcher = "emulate" }
    p.pair = { ranks = 2, launcher = "emulate" }
    p.node_size = 1
    p.what = G == 1 and L("one host with %d GPU: every rank an emulated node", G)
             or L("one host with %d GPUs: every rank an emulated node", G)
    p.why = L("emulated nodes talk over NCCL's socket transport on the loopback interface, not InfiniBand: " ..
              "the network numbers are the socket's. With hosts, use --launcher mpirun or srun")
  end
  return p
end

-- The largest measured row of a bench.
local function largest(r)
  local best
  for _, row in ipairs((r and r.rows) or {}) do
    if type(row.out_of_place) == "table" and (not best or row.size > best.size) then best = row end
  end
  return best
end

-- all_reduce at the plateau sizes on one plan entry; extra opts merged.
local function measure(lab, cfg, extra)
  if not cfg then return nil end
  local sim = lab.backend.simulated
  local o = { b = "64M", e = sim and "64M" or "256M", f = 2, ranks = cfg.ranks,
              per_node = cfg.per_node, launcher = cfg.launcher }
  if not sim then o.n, o.w = 10, 2 end
  for k, v in pairs(extra or {}) do o[k] = v end
  local r = lab.bench("all_reduce", o)
  local row = largest(r)
  return { r = r, row = row, busbw = row and row.out_of_place.bus_bw, time = row and row.out_of_place.time,
           size = row and row.size, ranks = r.ranks, wrong = row and row.out_of_place.nwrong or 0 }
end

local function size_name(b) return b and string.format("%d MiB", b // MiB) or "-" end

-- A failed verdict saying what this machine cannot show and what to do.
local function cannot(what, p)
  return { ok = false, msg = L("%s: %s", what, p.why or L("not possible on this machine")), saw = p.what,
           wanted = L("two nodes"), where = L("lab 7 text: 'Where you run it'"), unavailable = true }
end

-- The transport a learner may name: the full one or its first word.
local function transport_answers(t)
  if not t then return { any = { "none" } } end
  local first = t:match("^NET/(.+)$") or t:match("^([^/]+)")
  return { any = { t, first } }
end

-- First link matching pred in a parsed NCCL log.
local function find_link(nccl, pred)
  for _, l in ipairs((nccl and nccl.links) or {}) do if pred(l) then return l end end
  return nil
end

local function is_net(l) return tostring(l.transport):match("^NET/") ~= nil end

local function nccl_table(lab, title, nccl)
  local rows = {}
  for name, n in pairs((nccl and nccl.transports) or {}) do rows[#rows + 1] = { name, tostring(n) } end
  table.sort(rows, function(a, b) return a[1] < b[1] end)
  local links = {}
  for _, l in ipairs((nccl and nccl.links) or {}) do links[#links + 1] = l end
  table.sort(links, function(a, b) return a.from < b.from or (a.from == b.from and a.to < b.to) end)
  for i, l in ipairs(links) do
    if i > 16 then break end
    rows[#rows + 1] = { string.format("%d -> %d", l.from, l.to), l.detail .. string.format(" (%d ch)", l.channels or 0) }
  end
  lab.table{ title = title, columns = { L("transport / link"), L("links / via") }, rows = rows }
end

-- Checkpoints sent by train.lua: {step =, values = "v,v,..."}; the last one.
local function last_checkpoint(res)
  local best
  for _, row in ipairs((res and res.ranks and res.ranks[0] and res.ranks[0].results) or {}) do
    if row.checkpoint and (not best or row.checkpoint > best.checkpoint) then best = row end
  end
  return best
end

local function final_of(res)
  for _, row in ipairs((res and res.ranks and res.ranks[0] and res.ranks[0].results) or {}) do
    if row.final then return row end
  end
  return nil
end

-- "all_reduce:4096 reduce_scatter:512" (hier.lua's flight summary of a
-- communicator) -> {{op =, count =}, ...}
local function ops_of(text)
  local t = {}
  for op, count in tostring(text or ""):gmatch("([%w_]+):(%d+)") do t[#t + 1] = { op = op, count = tonumber(count) } end
  return t
end
local function ops_text(list)
  local t = {}
  for i, o in ipairs(list) do t[i] = L("%s of %d elements", o.op, o.count) end
  return #t > 0 and table.concat(t, ", ") or L("nothing")
end

-- The hierarchical all-reduce's steps, from each communicator's flight
-- recorder (hier.lua reports them): the world runs only the flat
-- all-reduce, the node's communicator a reduce-scatter and an all-gather,
-- the one across nodes one all-reduce of a shard - 1/node_size of the
-- buffer, the point of the hierarchy.
local function where_it_ran(res, out)
  local where = L("your hier.lua: which communicator each of the three steps runs on")
  local n = out.n
  for r = 0, out.ranks - 1 do
    local row = res.ranks[r] and res.ranks[r].results and res.ranks[r].results[1] or {}
    local world, intra, inter = ops_of(row.ran_world), ops_of(row.ran_intra), ops_of(row.ran_inter)
    local function fail(msg, saw, wanted)
      return { ok = false, msg = L("rank %d: %s", r, msg), saw = saw, wanted = wanted, where = where }
    end
    -- the members first: a swapped pair of splits runs right on 2 x 2
    local node, lr = r // out.node_size, r % out.node_size
    local want_intra, want_inter = {}, {}
    for k = 0, out.node_size - 1 do want_intra[#want_intra + 1] = tostring(node * out.node_size + k) end
    for k = 0, out.ranks // out.node_size - 1 do want_inter[#want_inter + 1] = tostring(k * out.node_size + lr) end
    local wi, we = table.concat(want_intra, ","), table.concat(want_inter, ",")
    local function sorted(text)
      local t = {}
      for v in tostring(text or ""):gmatch("%d+") do t[#t + 1] = tonumber(v) end
      table.sort(t)
      for i, v in ipairs(t) do t[i] = tostring(v) end
      return table.concat(t, ",")
    end
    if row.intra_members and row.intra_members ~= "" and sorted(row.intra_members) ~= wi then
      return fail(L("intra, your communicator inside a node, holds ranks {%s}%s; the ranks of rank %d's "
                     .. "node are {%s}", row.intra_members,
                     sorted(row.intra_members) == we and L(" - GPU %d of each node, a rail", lr) or "",
                     r, wi),
                  "intra {" .. row.intra_members .. "}", "intra {" .. wi .. "}")
    end
    if row.inter_members and row.inter_members ~= "" and sorted(row.inter_members) ~= we then
      return fail(L("inter, your communicator across nodes, holds ranks {%s}%s; GPU %d of each node is "
                     .. "{%s}", row.inter_members,
                     sorted(row.inter_members) == wi and L(" - the ranks inside a node") or "", lr, we),
                  "inter {" .. row.inter_members .. "}", "inter {" .. we .. "}")
    end
    if #world > 1 then
      local extra = {}
      for i = 2, #world do extra[#extra + 1] = world[i] end
      return fail(L("besides the flat all_reduce, %s ran on the world communicator (all %d ranks): the "
                     .. "hierarchy's steps belong on your two split communicators", ops_text(extra), out.ranks),
                  L("world: %s", ops_text(world)), L("world: the flat all_reduce only"))
    end
    for _, o in ipairs(inter) do
      if o.op ~= "all_reduce" then
        return fail(L("%s ran on your communicator across nodes: only the shard's all_reduce crosses the "
                       .. "network; the reduce-scatter and the all-gather stay inside a node", o.op),
                    L("across nodes: %s", ops_text(inter)), L("across nodes: one all_reduce"))
      end
    end
    for _, o in ipairs(intra) do
      if o.op == "all_reduce" then
        return fail(L("an all_reduce ran on your communicator inside a node: the sum over the nodes needs the one "
                      .. "across them"), L("inside a node: %s", ops_text(intra)),
                    L("inside a node: a reduce_scatter and an all_gather"))
      end
    end
    if #inter == 0 then
      return fail(L("your communicator across nodes ran nothing: no shard was summed over the nodes, so each node keeps "
                    .. "its own sum"), L("across nodes: nothing"), L("one all_reduce across nodes"))
    end
    for _, o in ipairs(inter) do
      if o.op == "all_reduce" and o.count > n // out.node_size then
        return fail(L("the all-reduce across nodes moved %d elements per GPU: the whole buffer crossed the "
                       .. "network; in the hierarchy only 1/%d of it does (the node's own step comes "
                       .. "first)", o.count, out.node_size),
                    L("across nodes: %s", ops_text(inter)), L("an all_reduce of %d elements across nodes",
                                                             n // out.node_size))
      end
    end
  end
  return { ok = true, msg = L("each step ran on its communicator, and only a shard crossed the network"), saw = "ok",
           wanted = "ok", where = where }
end

local TRAIN_STEPS, CKPT_EVERY, CRASH_STEP = 12, 4, 10

-- Step 5's question is about a bigger cluster than the table's: 4 nodes
-- of 8 GPUs.
local SHARP_NODES, SHARP_GPUS = 4, 8

-- Step 1's table. The pair's busbw and the ratio are what the question
-- 'ratio' asks the learner to predict: they show once the prediction is
-- in, beside it (the progress keeps both).
local function intra_inter_table(lab, out)
  local p, pred = out.p, tonumber(lab.answer("ratio") or "")
  local rows = {}
  for _, it in ipairs({ { "intra", L("one node") }, { "across", L("both nodes") }, { "pair", L("2 ranks, one per node") } }) do
    local m = out[it[1]]
    local bw = m and f2(m.busbw) or L("not here: %s", p.why and L("one node") or "-")
    if m and it[1] == "pair" and out.ratio and not pred then bw = L("predict 'ratio' first") end
    rows[#rows + 1] = { it[2], m and tostring(m.ranks) or "-", m and size_name(m.size) or "-", bw }
  end
  if out.ratio and pred then
    rows[#rows + 1] = { L("ratio one node / pair"), "", "", L("%sx measured, %sx predicted (the note: 18x)",
                                                                f2(out.ratio), f2(pred)) }
    lab.record("ratio_intra_pair_predicted", pred)
  end
  if out.intra and out.across and out.across.busbw and out.across.busbw > 0 then
    rows[#rows + 1] = { L("ratio one node / both nodes"), "", "", f2(out.intra.busbw / out.across.busbw) .. "x" }
  end
  lab.table{ title = L("all_reduce busbw: inside vs between nodes (GB/s)"), columns = { "run", L("ranks"), L("size"), "busbw" },
             rows = rows }
  if out.ratio and not pred then
    lab.log(L("the pair's busbw shows once you have predicted 'ratio' (press a)"))
  end
  out.shown = pred ~= nil
end

-- Step 3's table: the 'off' run and the slowdown show once the question
-- 'slowdown' has a prediction, beside it.
local function gdr_table(lab, out)
  if not (out.on and out.off) then return end
  local pred = tonumber(lab.answer("slowdown") or "")
  local function g(m) return m and m.r.nccl and (m.r.nccl.gdr == true and "GDRDMA" or L("no GDRDMA")) or "?" end
  local rows = { { "on", f2(out.on.busbw), g(out.on) } }
  if pred then
    rows[#rows + 1] = { "off", f2(out.off.busbw), g(out.off) }
    rows[#rows + 1] = { "slowdown", L("%s %% measured, %s %% predicted (the note: about 50 %%)",
                                     f1(out.slowdown), f1(pred)), "" }
    lab.record("gdr_slowdown_predicted_pct", pred)
  else
    rows[#rows + 1] = { "off", L("predict 'slowdown' first"), "" }
    lab.log(L("the run without GPUDirect RDMA shows once you have predicted 'slowdown' (press a)"))
  end
  lab.table{ title = L("GPUDirect RDMA (all_reduce across nodes)"), columns = { "", "busbw (GB/s)", L("log says") }, rows = rows }
  out.shown = pred ~= nil
end

return {
  title    = "Cross-node: inside a node vs between nodes",
  summary  = "all_reduce in one node, across two and one rank per node; transports from NCCL's log; GPUDirect RDMA; " ..
             "hierarchical all-reduce; SHARP; fail-stop and checkpoints",
  backends = "sim (2x-dgx-h100: two nodes; one-node presets say what they cannot show), cuda with mpirun/srun " ..
             "across hosts, or emulated nodes on one host",
  ranks    = 2,
  steps = {
    {
      id = "intra_inter", title = "The same all_reduce inside a node and between nodes",
      text = "steps/01-intra-inter.md",
      hints = { "ratio: one node's all_reduce runs on NVLink; the pair's bytes leave each node through one NIC. Put "
                .. "the two in the same units - one direction of one GPU's links against one direction of one NIC.",
                "nics: count the mlx5 rows of one host in the topology pane (1), or lab 1's NIC question." },
      questions = { { id = "ratio", ask = "Predict, before the table shows it: busbw of one full node divided by busbw of "
                                          .. "2 ranks one per node (within 30 %)?" },
                    { id = "nics", ask = "How many NICs does one node have?" } },
      run = function(lab)
        local p = plan(lab)
        lab.log(L("plan: %s%s", p.what, p.why and (" - " .. p.why) or ""))
        local out = { p = p }
        local k, total = 0, 3
        for _, name in ipairs({ "intra", "across", "pair" }) do
          lab.progress(k / total, "all_reduce: " .. name); k = k + 1
          out[name] = measure(lab, p[name])
        end
        if out.intra and out.pair and out.pair.busbw and out.pair.busbw > 0 then
          out.ratio = out.intra.busbw / out.pair.busbw
          lab.record("ratio_intra_pair", out.ratio)
        end
        if out.intra and out.across and out.across.busbw and out.across.busbw > 0 then
          lab.record("busbw_across", out.across.busbw)
        end
        intra_inter_table(lab, out)
        return out
      end,
      check = function(lab, out)
        local p = out.p
        -- answering re-judges the kept run: what the prediction unlocks is
        -- drawn here then, once
        if lab.answer("ratio") and not out.shown then intra_inter_table(lab, out) end
        if not out.ratio then return cannot(L("no run with one rank per node"), p) end
        local wrong = 0
        for _, name in ipairs({ "intra", "across", "pair" }) do
          if out[name] then wrong = wrong + (tonumber(out[name].wrong) or 0) end
        end
        return {
          checks.equals{ value = wrong, expected = 0, what = L("wrong elements in the three runs"), where = L("results pane (3)") },
          checks.close{ value = lab.answer("ratio"), expected = out.ratio, rtol = 0.3, answer = true,
                        what = L("your prediction of busbw one node / one rank per node"),
                        where = L("the step text: what each run's bytes cross, NVLink or a NIC, in one direction") },
          checks.equals{ value = lab.answer("nics"), expected = p.nics, answer = true, missing = L("press a to answer"),
                         what = L("NICs of one node"), where = L("topology pane (1): the mlx5 rows of host 0") },
        }
      end,
    },
    {
      id = "transports", title = "Which transport did NCCL pick? Read your own log",
      text = "steps/02-transports.md",
      hints = { "The table 'transports in your log' lists every ring edge: 'from -> to' and what NCCL printed after 'via'.",
                "Inside a node: P2P (NVLink or PCIe) or SHM (host memory). Between nodes: NET/IB or NET/Socket; " ..
                "GDRDMA at the end means GPUDirect RDMA." },
      questions = {
        { id = "intra", ask = "Transport between rank 0 and rank 1 (e.g. P2P/CUMEM, SHM, NET/IB; 'none' if no such link)?" },
        { id = "inter", ask = "Transport of a ring edge that leaves a node (NET/IB, NET/Socket; 'none' if none)?" },
        { id = "gdr", ask = "Does that network edge use GPUDirect RDMA (yes/no; 'none' if there is no network edge)?" },
      },
      run = function(lab)
        local p = plan(lab)
        local cfg = p.across or p.intra or { ranks = 2 }
        local r = lab.bench("all_reduce", { b = "1M", e = "1M", ranks = cfg.ranks, per_node = cfg.per_node,
                                            launcher = cfg.launcher, env = { NCCL_DEBUG = "INFO" } })
        nccl_table(lab, L("transports in your log (%d ranks)", r.ranks or 0), r.nccl)
        return { p = p, nccl = r.nccl }
      end,
      check = function(lab, out)
        local nccl = out.nccl
        if type(nccl) ~= "table" or (nccl.nccl_lines or 0) == 0 then
          return { ok = false, msg = L("no NCCL INFO line was captured from the run, so there is nothing to read"),
                   saw = L("no NCCL lines"), wanted = L("NCCL_DEBUG=INFO output"), where = L("log pane (5)") }
        end
        local l01 = find_link(nccl, function(l) return l.from == 0 and l.to == 1 and not is_net(l) end)
                    or find_link(nccl, function(l) return not is_net(l) end)
        local net = find_link(nccl, is_net)
        local gdr = net and (net.gdr == true and "yes" or "no") or "none"
        if net then lab.record("transport_inter", net.transport) end
        return {
          checks.equals{ value = lab.answer("intra"), expected = transport_answers(l01 and l01.transport),
                         what = L("transport rank 0 -> rank 1"),
                         answer = true, missing = L("press a to answer"), where = L("results pane (3), table 'transports in your log'") },
          checks.equals{ value = lab.answer("inter"), expected = transport_answers(net and net.transport),
                         what = L("transport leaving a node"), answer = true, missing = L("press a to answer"),
                         where = L("results pane (3): the links with NET/") },
          checks.equals{ value = lab.answer("gdr"), expected = gdr, what = L("GPUDirect RDMA on the network edge"),
                         answer = true, missing = L("press a to answer"), where = L("the 'via' text: .../GDRDMA or not") },
        }
      end,
    },
    {
      id = "gdr", title = "GPUDirect RDMA on and off",
      text = "steps/03-gdr.md",
      hints = { "Without GPUDirect RDMA every NIC transfer is staged through host memory: the text says at what rate "
                .. "the sim moves it. Then ask whether the NICs were the only limit of this all_reduce with it on - "
                .. "step 1's 'both nodes' row against 8 NICs of the pair's busbw.",
                "On the sim the switch is the no-gdr fault; on GPUs NCCL_NET_GDR_LEVEL=LOC." },
      questions = { { id = "slowdown", ask = "Predict, before the table shows it: how many percent slower is all_reduce "
                                             .. "across both nodes without GPUDirect RDMA (within 20 points)?" } },
      run = function(lab)
        local p = plan(lab)
        local out = { p = p }
        -- lab 1's nearest NIC: GPU 0's path to each NIC of its node, and
        -- whether NCCL's default NCCL_NET_GDR_LEVEL (PXB) allows GDR on it
        local topo = lab.topo()
        local ng, rows = #(topo.gpus or {}), {}
        local m = topo.matrix and topo.matrix.rows and topo.matrix.rows[1]
        for i, nic in ipairs(topo.nics or {}) do
          local path = m and m[ng + i]
          if nic.host == 0 and path then
            local near = path == "PIX" or path == "PXB"
            rows[#rows + 1] = { nic.name, path, (near and nic.gdr) and "yes" or "no" .. (near and "" or L(" (beyond PXB)")) }
          end
        end
        if #rows > 0 then
          lab.table{ title = L("GPU 0 and the NICs of its node"), columns = { "NIC", "path", L("GPUDirect RDMA by default") }, rows = rows }
        end
        if not p.across or p.kind == "emulated" then return out end
        local off = lab.backend.simulated and { fault = "no-gdr", env = { NCCL_DEBUG = "INFO" } }
                    or { env = { NCCL_NET_GDR_LEVEL = "LOC", NCCL_DEBUG = "INFO" } }
        lab.progress(0, "GPUDirect RDMA on")
        out.on = measure(lab, p.across, { env = { NCCL_DEBUG = "INFO" } })
        lab.progress(0.5, "GPUDirect RDMA off")
        out.off = measure(lab, p.across, off)
        if out.on.busbw and out.off.busbw and out.on.busbw > 0 then
          out.slowdown = (1 - out.off.busbw / out.on.busbw) * 100
          lab.record("gdr_slowdown_pct", out.slowdown)
        end
        gdr_table(lab, out)
        return out
      end,
      check = function(lab, out)
        local p = out.p
        if lab.answer("slowdown") and out.on and not out.shown then gdr_table(lab, out) end
        if p.kind == "emulated" then
          return { ok = false, msg = L("emulated nodes use NCCL's socket transport, where GPUDirect RDMA does not apply: "
                   .. "nothing to switch off here. %s", p.why), saw = p.what, wanted = L("InfiniBand between hosts"),
                   where = L("lab 7 text: 'Where you run it'"), unavailable = true }
        end
        if not out.slowdown then return cannot(L("GPUDirect RDMA only matters between nodes"), p) end
        return {
          checks.equals{ value = out.off.r.nccl and out.off.r.nccl.gdr, expected = false,
                         what = L("the log of the 'off' run has no GDRDMA link"), where = L("log pane (5)") },
          checks.close{ value = lab.answer("slowdown"), expected = out.slowdown, atol = 20, rtol = 0, unit = "%",
                        answer = true, what = L("your prediction of the slowdown without GPUDirect RDMA"),
                        where = L("the step text: what the sim assumes of the bounce, and what else bounds the "
                                  .. "all_reduce across both nodes (step 1's table)") },
        }
      end,
    },
    {
      id = "hierarchical", title = "Exercise: a hierarchical all-reduce",
      text = "steps/04-hierarchical.md",
      exercise = "hier.lua",
      hints = {
        "Two communicators: the ranks of one node, and GPU k of every node (a rail). split's color says who is "
        .. "together, its key the order inside.",
        "Each of the three steps is one collective on one of your two communicators, in the order of the file's "
        .. "comment: the first and the last stay inside the node, the middle one crosses the network - and only the "
        .. "shard (n / node_size elements) crosses it.",
      },
      run = function(lab)
        local p = plan(lab)
        local cfg = p.across or p.intra or { ranks = 2 }
        local node_size = p.kind == "sim2" and p.G or (p.node_size or 1)
        if cfg.ranks % node_size ~= 0 then node_size = 1 end
        local n = lab.backend.simulated and (4 * MiB) or (64 * MiB)
        lab.progress(0, L("hier.lua on %d ranks", cfg.ranks))
        local res = lab.spmd(lab.exercise, { ranks = cfg.ranks, per_node = cfg.per_node, launcher = cfg.launcher, timeout = 120,
                                             args = { tostring(node_size), tostring(n) },
                                             env = { NCCL_DEBUG = "INFO", NCCL_DEBUG_SUBSYS = "INIT,COLL" } })
        local out = { res = res, node_size = node_size, ranks = cfg.ranks, p = p, n = n }
        if lab.backend.simulated and p.across then
          for i, algo in ipairs({ "ring", "tree" }) do
            lab.progress(i / 3, "flat all_reduce, NCCL_ALGO=" .. algo)
            local r = lab.bench("all_reduce", { b = tostring(n * 4), e = tostring(n * 4), ranks = cfg.ranks,
                                                per_node = cfg.per_node, env = { NCCL_ALGO = algo } })
            local row = largest(r)
            out[algo] = row and row.out_of_place.time
          end
        end
        local r0 = res.ranks and res.ranks[0] and res.ranks[0].results and res.ranks[0].results[1]
        if r0 then
          lab.table{ title = L("all_reduce of %d MiB on %d ranks (%d per node), time in us", n * 4 // MiB,
                              cfg.ranks, node_size),
                     columns = { L("version"), L("time (us)") },
                     rows = { { L("flat (NCCL's choice)"), f1(r0.t_flat_us) }, { L("hierarchical (yours)"), f1(r0.t_hier_us) },
                              { "flat, NCCL_ALGO=ring", f1(out.ring) }, { "flat, NCCL_ALGO=tree", f1(out.tree) } } }
        end
        return out
      end,
      check = function(lab, out)
        local res = out.res
        local nodes = out.ranks // out.node_size
        if not res.ok then
          local r = res.failed_rank or 0
          local e = res.ranks and res.ranks[r] and res.ranks[r].error
          local why = tostring(e or res.reason)
          -- a count that fits another communicator size: a step on the wrong one
          local size_hint = why:find("needs size x", 1, true) and L("; the counts fit a communicator of another size - is "
                            .. "each step on the communicator it needs?") or ""
          return { ok = false, msg = L("hier.lua did not finish on rank %d: %s (the plan: %d ranks inside a "
                                       .. "node x %d nodes%s)", r, why, out.node_size, nodes, size_hint),
                   saw = L("an error"), wanted = L("the script finishes on every rank"),
                   where = L("log pane (5); your hier.lua: the two splits, and which communicator each step runs on") }
        end
        local mism, sums, sizes = {}, {}, {}
        for r = 0, out.ranks - 1 do
          local row = res.ranks[r] and res.ranks[r].results and res.ranks[r].results[1]
          mism[#mism + 1] = row and row.mismatches
          sums[r] = row and row.flat
          sizes[r] = row and string.format("%s x %s", tostring(row.intra_size), tostring(row.inter_size))
        end
        local worst = 0
        for _, m in ipairs(mism) do worst = math.max(worst, tonumber(m) or math.huge) end
        local v = { where_it_ran(res, out) }
        v[#v + 1] =
          checks.equals{ value = worst, expected = 0, what = L("elements where your hierarchical result differs from the flat "
                         .. "all_reduce (worst rank)"), where = L("your hier.lua; results of every rank") }
        v[#v + 1] = checks.identical{ values = sizes, ranks = out.ranks, what = L("communicator sizes (inside x across)"),
                                      where = L("your splits") }
        v[#v + 1] = checks.equals{ value = sizes[0], expected = string.format("%d x %d", out.node_size, nodes),
                                   what = L("rank 0's communicators (ranks inside a node x nodes)"),
                                   where = L("your two comm:split calls") }
        local nccl = res.nccl
        if type(nccl) == "table" and type(nccl.tuning) == "table" then
          local seen = {}
          for _, t in ipairs(nccl.tuning) do seen[t.coll] = true end
          for name in pairs(nccl.colls or {}) do seen[name] = true end
          v[#v + 1] = checks.equals{ value = (seen.ReduceScatter and seen.AllGather) and "both" or "missing",
            expected = "both", what = L("ReduceScatter and AllGather in the NCCL log of your run"), where = L("log pane (5)") }
        end
        return checks.all(v)
      end,
    },
    {
      id = "sharp", title = "SHARP: reducing inside the network (a what-if)",
      text = "steps/05-sharp.md",
      hints = { "A ring all-reduce sends 2(n-1)/n of the buffer out of every node; with in-network reduction each node sends it once.",
                "n is every rank of the ring, not the nodes: how many ranks has the ring of the question's cluster?" },
      questions = { { id = "traffic", ask = string.format("On a cluster of %d such nodes (%d GPUs), all_reduce over every GPU: "
                                                          .. "ring network bytes per node / SHARP network bytes per node?",
                                                          SHARP_NODES, SHARP_NODES * SHARP_GPUS) } },
      run = function(lab)
        local p = plan(lab)
        local out = { p = p, n = (p.across and p.across.ranks) or 16 }
        if p.kind == "sim2" or p.kind == "cluster" then
          -- the algorithm NCCL's log names for the measured size
          local function algo_of(m)
            for _, t in ipairs((m.r.nccl and m.r.nccl.tuning) or {}) do
              if t.bytes == m.size and t.coll == "AllReduce" then return tostring(t.algo) end
            end
            return "?"
          end
          lab.progress(0, L("the ring across nodes (NCCL_ALGO=Ring)"))
          out.ring = measure(lab, p.across, { env = { NCCL_ALGO = "Ring", NCCL_DEBUG = "INFO" } })
          lab.progress(0.33, L("as NCCL picks"))
          out.picked = measure(lab, p.across, { env = { NCCL_DEBUG = "INFO" } })
          lab.progress(0.66, "NCCL_COLLNET_ENABLE=1")
          out.sharp = measure(lab, p.across, { env = { NCCL_COLLNET_ENABLE = "1", NCCL_DEBUG = "INFO" } })
          out.algo, out.picked_algo = algo_of(out.sharp), algo_of(out.picked)
          local ring_bytes = string.format("2(n-1)/n x S = %.3f S", 2 * (out.n - 1) / out.n)
          local picked_bytes = out.picked_algo:upper():match("^NVLS") and L("S (NVLS in the node, a tree across)")
                               or out.picked_algo:upper():match("^RING") and ring_bytes or "-"
          lab.table{ title = L("all_reduce across nodes: ring, NCCL's choice, in-network reduction") ..
                             (lab.backend.simulated and L(" (SIMULATED; row 3 a what-if)") or ""),
                     columns = { "", L("Algo (NCCL's log)"), "busbw (GB/s)", L("network bytes per node") },
                     rows = { { "ring (NCCL_ALGO=Ring)", algo_of(out.ring), f2(out.ring.busbw), ring_bytes },
                              { L("as NCCL picks"), out.picked_algo, f2(out.picked.busbw), picked_bytes },
                              { "NCCL_COLLNET_ENABLE=1", out.algo, f2(out.sharp.busbw),
                                out.algo:upper():match("^RING") and ring_bytes or L("S (summed in the IB switch)") } } }
        end
        return out
      end,
      check = function(lab, out)
        -- the formula at another size than the table's, so it is derived,
        -- not read off the screen
        local n = SHARP_NODES * SHARP_GPUS
        return checks.close{ value = lab.answer("traffic"), expected = 2 * (n - 1) / n, rtol = 0.01,
                             answer = true, what = L("ring / SHARP network bytes per node, %d ranks", n),
                             where = L("the step text: who sends what across the network, for n ranks") }
      end,
    },
    {
      id = "crash", title = "A node dies: fail-stop, then resume from a checkpoint",
      text = "steps/06-crash.md",
      hints = { "The run's report names the rank that died (table 'fail-stop').",
                "The job resumes from the last checkpoint it saved before the crash." },
      questions = { { id = "crashed", ask = "Which rank died?" },
                    { id = "resumed", ask = "From which step did the job resume (the last checkpoint)?" } },
      run = function(lab)
        local p = plan(lab)
        local per = math.max(1, math.min(p.G, 4))
        local cfg = (p.kind == "sim2") and { ranks = 2 * per, per_node = per } or p.across or p.intra or { ranks = 2 }
        local victim = p.kind == "sim2" and per or (cfg.ranks - 1)
        local base = { ranks = cfg.ranks, per_node = cfg.per_node, launcher = cfg.launcher, timeout = 60 }
        local function run(args, extra)
          local o = {}
          for k, v in pairs(base) do o[k] = v end
          for k, v in pairs(extra or {}) do o[k] = v end
          o.args = args
          return lab.spmd("scripts/train.lua", o)
        end
        local steps = tostring(TRAIN_STEPS)
        lab.progress(0, L("training without a fault (the reference)"))
        local ref = run({ steps, tostring(CKPT_EVERY) })
        lab.progress(0.33, L("training; rank %d dies", victim))
        local crash
        if lab.backend.simulated then
          -- each step is one all_reduce on the world: the fault fires in step CRASH_STEP
          crash = run({ steps, tostring(CKPT_EVERY) }, { fault = "crash:" .. victim,
                                                        env = { MGPU_FAULT_CRASH_AT = tostring(CRASH_STEP) } })
        else
          crash = run({ steps, tostring(CKPT_EVERY), "crash", tostring(victim), tostring(CRASH_STEP) })
        end
        local ck = last_checkpoint(crash)
        local resumed
        if ck then
          lab.progress(0.66, L("resuming from step %d", ck.checkpoint))
          resumed = run({ steps, tostring(CKPT_EVERY), "resume", tostring(ck.checkpoint), ck.values })
        end
        local fr, fz = final_of(ref), final_of(resumed)
        lab.table{ title = "fail-stop", columns = { "", "" },
                   rows = { { L("the crashed run"), crash.ok and L("finished (no crash?)") or L("failed: %s", tostring(crash.reason)) },
                            { L("last checkpoint saved"), ck and ("step " .. ck.checkpoint) or L("none") },
                            { L("resumed run"), resumed and (resumed.ok and L("finished") or L("failed: %s", tostring(resumed.reason))) or "-" },
                            { L("final checksum, no fault"), tostring(fr and fr.checksum) },
                            { L("final checksum, crashed + resumed"), tostring(fz and fz.checksum) } } }
        return { crash = crash, ck = ck, ref = fr, resumed = fz, victim = victim }
      end,
      check = function(lab, out)
        local crash = out.crash
        if crash.ok then
          return { ok = false, msg = L("the run with a dying rank finished: the fault did not fire"), saw = "ok",
                   wanted = L("the run fails naming the rank"), where = L("log pane (5)") }
        end
        return {
          checks.equals{ value = crash.failed_rank, expected = out.victim, what = L("the rank the runtime named"),
                         where = L("results pane (3), table 'fail-stop'") },
          checks.equals{ value = out.resumed and out.resumed.checksum, expected = out.ref and out.ref.checksum,
                         what = L("final parameters after crash + resume vs a run without fault"), where = L("table 'fail-stop'") },
          checks.equals{ value = lab.answer("crashed"), expected = crash.failed_rank, answer = true, missing = L("press a to answer"),
                         what = L("the rank that died"), where = L("table 'fail-stop', the crashed run") },
          checks.equals{ value = lab.answer("resumed"), expected = out.ck and out.ck.checkpoint, answer = true, missing = L("press a to answer"),
                         what = L("the step the job resumed from"), where = L("table 'fail-stop', last checkpoint") },
        }
      end,
    },
  },
}
