-- labs/06-tpdp/lab.lua - the note's practice 6: TP x DP, 8 GPUs as 4 TP x 2
-- DP. The groups made with comm:split (exercise); the Megatron layer's f
-- and g operators and the gradient sync (exercise), checked against the
-- unsharded layer and the communicators' flight recorders; the same model
-- with TP inside a node and across two nodes. The sharded layers are
-- labs/lib/tp (init.lua), the harnesses labs/lib/tp/probe.lua (step 1)
-- and labs/lib/tp/train.lua (steps 2-3).
--
-- The steps are a list built one by one (`steps[#steps + 1] = ...`): a
-- later step is appended at the end of this file the same way.

local RANKS, TPN = 8, 4                -- 4 TP x 2 DP, always 8 ranks
local LAYERS = 2                       -- train.lua's models have 2 layers
local MICRO = 8                        -- and 8 micro-batches in time mode

local function f2(x) return type(x) == "number" and string.format("%.2f", x) or "-" end
local function f3(x) return type(x) == "number" and string.format("%.3f", x) or "-" end
local function e1(x) return type(x) == "number" and string.format("%.1e", x) or "-" end

-- The row rank r reported (the one with a `rank`), or nil.
local function row_of(res, r)
  local rk = res and res.ranks and res.ranks[r]
  for _, row in ipairs(rk and rk.results or {}) do if row.rank == r then return row end end
end

local function broken(res, what, where)
  return { ok = false, msg = L("%s did not finish: %s", what, tostring(res and res.reason)),
           saw = tostring(res and res.reason), wanted = L("every rank finishes"), where = where or L("log pane (5)") }
end

local function list(t)
  local s = {}
  for i, v in ipairs(t or {}) do s[i] = tostring(math.tointeger(v) or v) end
  return "{" .. table.concat(s, ",") .. "}"
end

-- What step 1 asks for: rank r's TP group, DP group and its place in each.
local function wanted(r)
  local tp, dp = {}, {}
  for i = 0, TPN - 1 do tp[#tp + 1] = (r // TPN) * TPN + i end
  for i = 0, RANKS // TPN - 1 do dp[#dp + 1] = r % TPN + i * TPN end
  return tp, dp, r % TPN, r // TPN
end

local function sum(t)
  local s = 0
  for _, v in ipairs(t) do s = s + v end
  return s
end

-- Ranks on machines with fewer GPUs share them (sim) or run as emulated
-- nodes (cuda): 4 x 2 needs 8 ranks whatever the machine has.
local function say_ranks(lab)
  local g = lab.backend.gpus or 0
  if g < RANKS then
    local how = lab.backend.simulated and L("ranks share GPUs (rank r on GPU r mod %d)", math.max(g, 1))
                or L("the ranks run as emulated nodes")
    lab.log(g == 1 and L("4 TP x 2 DP needs 8 ranks; this machine has %d GPU, so %s", g, how)
            or L("4 TP x 2 DP needs 8 ranks; this machine has %d GPUs, so %s", g, how))
  end
end

local function spmd(lab, path, args, extra)
  local o = { ranks = RANKS, args = args, timeout = 60 }
  for k, v in pairs(extra or {}) do o[k] = v end
  return lab.spmd(path, o)
end

local steps = {}

--- Step 1: the groups --------------------------------------------------------

-- What a wrong group looks like, said in the learner's terms: the other
-- axis's group (swapped colors or coords), or ranks k apart instead of
-- the layout's spacing.
local function group_mistake(r, which, sorted)
  local tpw, dpw = wanted(r)
  local other = which == "TP" and "DP" or "TP"
  if list(sorted) == list(which == "TP" and dpw or tpw) then
    return L(" - that is rank %d's %s group: look at which index each split takes as its color, and at what coords returns first",
             r, other)
  end
  if #sorted ~= #(which == "TP" and tpw or dpw) then
    local size = #(which == "TP" and tpw or dpw)
    if #sorted == RANKS then
      return L(" - %d ranks, where a %s group has %d: every rank passed the same color", #sorted, which, size)
    end
    return L(" - %d ranks, where a %s group has %d", #sorted, which, size)
  end
  local step = #sorted > 1 and sorted[2] - sorted[1]
  for i = 3, #sorted do if sorted[i] - sorted[i - 1] ~= step then step = nil end end
  if step then
    local want_step = which == "TP" and 1 or TPN
    return L(" - ranks %d apart; in Megatron's layout a %s group's ranks are %s", step, which,
             want_step == 1 and L("neighbours (the TP index varies fastest)")
             or L("%d apart (one per TP group)", want_step))
  end
  return ""
end

local function group_verdict(res, which)
  local where = L("groups.lua: the %s split (color, key)", which)
  for r = 0, RANKS - 1 do
    local row = row_of(res, r)
    if not row then
      return { ok = false, msg = L("rank %d reported nothing", r), saw = L("nothing"), wanted = L("a row per rank"),
               where = L("log pane (5)") }
    end
    local tpw, dpw = wanted(r)
    local want = which == "TP" and tpw or dpw
    local got = which == "TP" and row.tp or row.dp
    if not got then
      return { ok = false, msg = L("rank %d has no %s communicator: its split gave nil (a nil or negative color)", r, which),
               saw = "nil", wanted = L("a communicator of %d ranks", #want), where = where }
    end
    local members = {}
    for i, v in ipairs(got.members or {}) do members[i] = math.tointeger(v) or v end
    local sorted = {}
    for i, v in ipairs(members) do sorted[i] = v end
    table.sort(sorted)
    if list(sorted) ~= list(want) or got.sum ~= sum(want) then
      return { ok = false,
               msg = L("rank %d's %s communicator holds ranks %s (an all_gather of the members' rank ids over it; their all_reduce sum is %s)%s",
                       r, which, list(members), tostring(got.sum), group_mistake(r, which, sorted)),
               saw = L("%s, sum %s", list(sorted), tostring(got.sum)), wanted = L("%s, sum %s", list(want), tostring(sum(want))),
               where = where }
    end
    if list(members) ~= list(want) then
      return { ok = false,
               msg = L("rank %d's %s group has the right ranks in another order: %s (the key orders them)",
                       r, which, list(members)),
               saw = list(members), wanted = L("ascending order"), where = where }
    end
  end
  local groups, seen = {}, {}
  for r = 0, RANKS - 1 do
    local tpw, dpw = wanted(r)
    local s = list(which == "TP" and tpw or dpw)
    if not seen[s] then seen[s] = true; groups[#groups + 1] = s end
  end
  return { ok = true, msg = L("%s groups %s, by collectives on each", which, table.concat(groups, " ")), saw = "ok",
           wanted = "ok", where = where }
end

local function coords_verdict(res)
  for r = 0, RANKS - 1 do
    local row = row_of(res, r)
    local tpw, dpw, t, d = wanted(r)
    if row.tp_rank ~= t or row.dp_rank ~= d or (row.tp and row.tp.rank) ~= t or (row.dp and row.dp.rank) ~= d then
      -- the places the learner's own communicators give (they may be wrong too)
      return { ok = false,
               msg = L("rank %d: coords gives tp_rank %s, dp_rank %s; your communicators number it %s in the TP one %s and %s in the DP one %s",
                       r, tostring(row.tp_rank), tostring(row.dp_rank),
                       tostring(row.tp and row.tp.rank), row.tp and list(row.tp.members) or L("(none)"),
                       tostring(row.dp and row.dp.rank), row.dp and list(row.dp.members) or L("(none)")),
               saw = string.format("(%s, %s)", tostring(row.tp_rank), tostring(row.dp_rank)),
               wanted = L("its place in %s and in %s", list(tpw), list(dpw)), where = "groups.lua: coords(rank)" }
    end
  end
  return { ok = true, msg = L("coords(rank) is each rank's place in its TP and DP communicators"), saw = "ok", wanted = "ok",
           where = "groups.lua" }
end

steps[#steps + 1] = {
  id = "groups", title = "Exercise: 8 ranks as 4 TP x 2 DP",
  text = "steps/01-groups.md",
  exercise = "groups.lua",
  hints = { "Write the 8 ranks as a grid of 2 rows of 4, the way the file's comment lists the groups: a TP group is "
            .. "a row, a DP group a column. coords(rank) says in which column and which row rank sits.",
            "split's color decides who ends up together, its key the order inside. Along one TP group, which of the "
            .. "two indices stays the same, and which counts 0, 1, 2, 3?",
            "coords is a remainder and an integer division by the TP size. Each split takes as its color the index "
            .. "its members share and as its key the one that varies among them; the DP split mirrors the TP one." },
  run = function(lab)
    say_ranks(lab)
    lab.progress(0, L("your groups.lua on 8 ranks"))
    local res = spmd(lab, lab.exercise, {})
    local t = {}
    for r = 0, RANKS - 1 do
      local row = row_of(res, r) or {}
      t[#t + 1] = { tostring(r), tostring(row.tp_rank), tostring(row.dp_rank),
                    row.tp and list(row.tp.members) or "nil", row.tp and tostring(row.tp.sum) or "-",
                    row.dp and list(row.dp.members) or "nil", row.dp and tostring(row.dp.sum) or "-" }
    end
    lab.table{ title = L("what each rank's communicators hold (all_gather of rank ids, all_reduce sum)"),
               columns = { L("rank"), "tp_rank", "dp_rank", L("TP group"), L("sum"), L("DP group"), L("sum") }, rows = t }
    return { res = res }
  end,
  check = function(lab, out)
    if not out.res.ok then return broken(out.res, L("your groups.lua"), L("log pane (5); groups.lua")) end
    return { group_verdict(out.res, "TP"), group_verdict(out.res, "DP"), coords_verdict(out.res) }
  end,
}

--- Step 2: the Megatron layer ---------------------------------------------------

local function ar(w) return (w and w.by and w.by.all_reduce) or 0 end

-- f and g tried alone (labs/lib/tp/train.lua's probe): what each must give.
local OPS_WANTED = { F = { forward = "identity", backward = "sum" }, G = { forward = "sum", backward = "identity" } }
-- what an operator gave, in words (made at check time: the words are the learner's language)
local function ops_said()
  return { identity = L("its input unchanged"), sum = L("the sum over the TP group"),
           mean = L("the mean over the TP group (an \"avg\" all-reduce)"),
           other = L("neither its input nor the TP group's sum"), ["no tensor"] = L("no tensor"),
           ["another shape"] = L("a tensor of another shape") }
end

local function ops_verdict(res)
  local bad, saw, said = {}, {}, ops_said()
  for r = 0, RANKS - 1 do
    local o = (row_of(res, r) or {}).ops
    if o then
      for _, name in ipairs{ "F", "G" } do
        local got = o[name] or {}
        saw[#saw + 1] = r == 0 and string.format("%s: %s / %s", name, tostring(got.forward), tostring(got.backward)) or nil
        for _, dir in ipairs{ "forward", "backward" } do
          if r == 0 and got[dir] ~= OPS_WANTED[name][dir] then
            bad[#bad + 1] = L("%s:%s gives %s", name, dir, said[got[dir]] or tostring(got[dir]))
          end
        end
      end
    end
  end
  local where = L("megatron.lua: F and G; the step text's table of f and g")
  if #bad == 0 then
    return { ok = true, msg = L("f and g, each tried alone, do what the table says in both directions"), saw = "ok",
             wanted = "ok", where = where }
  end
  return { ok = false,
           msg = L("f and g, each tried alone on a tensor that differs from rank to rank: %s - the step text's table says what each does in forward and in backward",
                   table.concat(bad, "; ")),
           saw = table.concat(saw, ", ") .. " (forward / backward)",
           wanted = L("each operator as the table of f and g says, in both directions"), where = where }
end

-- A TP group's ranks must end the forward with the same output, and the
-- backward with the same input gradient: if not, a block's partial sums
-- (forward) or its shares of dL/dx (backward) left it without being added
-- up over the group.
-- (made at check time: the words are the learner's language)
local function agree_texts()
  return {
    y_sum = { what = "forward", thing = L("outputs"),
              why = L("a row-parallel layer's partial sums left their block without being added up over the group"),
              where = L("megatron.lua: where g goes in mlp_forward and attention_forward") },
    dx_sum = { what = "backward", thing = L("input gradients"),
               why = L("a block's shares of dL/dx left it without being added up over the group"),
               where = L("megatron.lua: where f goes in mlp_backward and attention_backward (backward runs in reverse)") },
  }
end
local function agree_verdict(res, key)
  local a = agree_texts()[key]
  for d = 0, RANKS // TPN - 1 do
    local groups, members = {}, {}
    for t = 0, TPN - 1 do
      local r = d * TPN + t
      members[#members + 1] = r
      local row = row_of(res, r)
      local k = row and row[key] or "-"
      groups[k] = groups[k] or {}
      table.insert(groups[k], r)
    end
    local n = 0
    for _ in pairs(groups) do n = n + 1 end
    if n > 1 then
      return { ok = false,
               msg = L("the ranks of TP group %s end the %s with %d different %s: %s", list(members),
                       a.what, n, a.thing, a.why),
               saw = L("%d different %s in %s", n, a.thing, list(members)),
               wanted = L("the same on every rank of a TP group"), where = a.where }
    end
  end
  return { ok = true, msg = L("every TP group's ranks agree on the %s", a.thing), saw = "ok", wanted = "ok",
           where = "megatron.lua" }
end

local function megatron_verdicts(res)
  local v = { ops_verdict(res), agree_verdict(res, "y_sum"), agree_verdict(res, "dx_sum") }
  local where_f, where_g = L("megatron.lua: F:backward and where f goes"), L("megatron.lua: G:forward and where g goes")
  -- the numbers: output, input gradient, every parameter gradient
  local function numbers(key, what, where)
    for r = 0, RANKS - 1 do
      local row = row_of(res, r)
      local c = row and row[key]
      if not c or c.bad > 0 then
        return { ok = false, msg = L("rank %d (tp %s, dp %s): the %s differs from the unsharded layer's in %s of %d elements (largest error %s)",
                                     r, tostring(row and row.tp_rank), tostring(row and row.dp_rank), what, tostring(c and c.bad),
                                     row and row.act_count or 0, e1(c and c.err)),
                 saw = e1(c and c.err), wanted = L("within rtol %s, atol %s", tostring(row and row.rtol),
                                                   tostring(row and row.atol)), where = where }
      end
    end
    return { ok = true, msg = L("the %s equals the unsharded layer's on every rank", what), saw = "ok", wanted = "ok",
             where = where }
  end
  v[#v + 1] = numbers("fwd", L("output (forward, 2 layers)"), where_g)
  v[#v + 1] = numbers("dx", L("input gradient"), where_f)
  local grads = { ok = true, msg = L("every parameter gradient equals its slice of the unsharded layer's, on every rank"),
                  saw = "ok", wanted = "ok", where = "megatron.lua: sync_grads" }
  for r = 0, RANKS - 1 do
    local g = (row_of(res, r) or {}).grads
    if not g or g.bad > 0 then
      local w = g and g.worst or {}
      -- a whole-number ratio to the right gradient says more than the error
      local times = w.ratio and math.abs(w.ratio - 1) > 1e-3 and L(", %.2fx the unsharded slice", w.ratio) or ""
      grads = { ok = false, msg = L("rank %d: %s of its %s parameter gradients differ from the same slice of the unsharded layer's gradient; the worst, %s, in %s of %s elements (largest error %s%s)",
                                    r, tostring(g and g.bad), tostring((row_of(res, r) or {}).params), tostring(w.name),
                                    tostring(w.bad), tostring(w.count), e1(w.err), times),
                saw = e1(w.err) .. times, wanted = L("within the tolerance"), where = L("megatron.lua: sync_grads (and f, g)") }
      break
    end
  end
  v[#v + 1] = grads
  -- the communication, from the flight recorders
  local counts = { ok = true, msg = L("every TP group: %d all-reduces in forward and %d in backward, %d layers (the TP communicators' flight recorders)",
                                      2 * LAYERS, 2 * LAYERS, LAYERS),
                   saw = L("2 + 2 per layer"), wanted = L("2 + 2 per layer"), where = where_f .. "; " .. where_g }
  for r = 0, RANKS - 1 do
    local c = ((row_of(res, r) or {}).calls or {}).tp
    local fwd, bwd = ar(c and c.fwd), ar(c and c.bwd)
    local other = (c and c.fwd.n or 0) + (c and c.bwd.n or 0) - fwd - bwd
    if fwd ~= 2 * LAYERS or bwd ~= 2 * LAYERS or other ~= 0 then
      counts = { ok = false,
                 msg = L("rank %d's TP communicator recorded %d all-reduces in forward and %d in backward (%d other collectives) for %d layers: %g + %g per layer, where a layer has two blocks (attention, MLP), each entered through f and left through g",
                         r, fwd, bwd, other, LAYERS, fwd / LAYERS, bwd / LAYERS),
                 saw = L("%g + %g per layer", fwd / LAYERS, bwd / LAYERS),
                 wanted = L("2 in forward + 2 in backward per layer, nothing else"), where = where_f .. "; " .. where_g }
      break
    end
  end
  v[#v + 1] = counts
  local dp = { ok = true, msg = L("the gradients are all-reduced in the DP groups only"), saw = "ok", wanted = "ok",
               where = "megatron.lua: sync_grads" }
  for r = 0, RANKS - 1 do
    local c = (row_of(res, r) or {}).calls or {}
    local tp_sync = c.tp and c.tp.sync.n or 0
    local world = c.world and (c.world.fwd.n + c.world.bwd.n + c.world.sync.n) or 0
    local dp_sync = ar(c.dp and c.dp.sync)
    local dp_other = c.dp and (c.dp.fwd.n + c.dp.bwd.n) or 0
    if tp_sync ~= 0 or world ~= 0 or dp_sync == 0 or dp_other ~= 0 then
      dp = { ok = false,
             msg = L("rank %d's flight recorders: gradient sync %d collectives on the TP communicator, %d all-reduces on the DP one, %d on the world; %d on the DP one during forward and backward",
                     r, tp_sync, dp_sync, world, dp_other),
             saw = string.format("TP %d, DP %d, world %d", tp_sync, dp_sync, world),
             wanted = L("all-reduces on the DP communicator only, after backward"), where = "megatron.lua: sync_grads" }
      break
    end
  end
  v[#v + 1] = dp
  return v
end

steps[#steps + 1] = {
  id = "megatron", title = "Exercise: the Megatron layer, f and g",
  text = "steps/02-megatron.md",
  exercise = "megatron.lua",
  hints = { "f stands where a replicated input enters column-parallel layers, g where row-parallel partial sums leave: " ..
            "each is an all-reduce (sum) over the TP group in one direction and nothing in the other.",
            "After backward each rank holds its DP shard's mean gradient; the DP group holds the same slices for " ..
            "the other half of the batch.",
            "Backward runs a block in reverse, so the operator that ends the forward starts the backward. For the "
            .. "gradient sync: which communicator joins the ranks that hold the same slice of a weight, and do two "
            .. "halves' mean gradients add up or average into the whole batch's?" },
  run = function(lab)
    say_ranks(lab)
    lab.progress(0, L("your megatron.lua: 2 layers on 8 ranks against the unsharded layers"))
    local res = spmd(lab, lab.exercise, { "check" })
    local t = {}
    for r = 0, RANKS - 1 do
      local row = row_of(res, r) or {}
      local c = row.calls or {}
      local w = row.grads and row.grads.worst
      t[#t + 1] = { tostring(r), tostring(row.tp_rank), tostring(row.dp_rank), e1(row.fwd and row.fwd.err),
                    e1(row.dx and row.dx.err), w and (w.name .. " " .. e1(w.err)) or (row.grads and L("all equal") or "-"),
                    string.format("%d / %d", ar(c.tp and c.tp.fwd), ar(c.tp and c.tp.bwd)),
                    tostring(ar(c.dp and c.dp.sync)), tostring(c.world and (c.world.fwd.n + c.world.bwd.n + c.world.sync.n) or "-") }
    end
    lab.table{ title = L("each rank against the unsharded layers (largest errors) and its collectives (flight recorders)"),
               columns = { L("rank"), "tp", "dp", L("output"), L("input grad"), L("worst gradient"), L("TP all-reduces fwd / bwd"),
                           L("DP all-reduces"), "world" }, rows = t }
    return { res = res }
  end,
  check = function(lab, out)
    if not out.res.ok then return broken(out.res, L("your megatron.lua"), L("log pane (5); megatron.lua")) end
    return megatron_verdicts(out.res)
  end,
}

--- Step 3: TP inside a node, TP across nodes ------------------------------------

-- NVLink islands: GPUs joined by NV# links (union of the pairs).
local function islands(topo)
  local rows = (topo.matrix or {}).rows or {}
  local n = #(topo.gpus or {})
  local id = {}
  for i = 1, n do id[i] = i end
  local function find(i) while id[i] ~= i do i = id[i] end return i end
  for i = 1, n do
    for j = 1, n do
      if i ~= j and tostring((rows[i] or {})[j]):match("^NV") then id[find(i)] = find(j) end
    end
  end
  local names, out, k = {}, {}, 0
  for i = 1, n do
    local root = find(i)
    if not names[root] then k = k + 1; names[root] = k end
    out[i - 1] = names[root]
  end
  return out
end

-- The GPU (topology index) rank r runs on: sim machines of several hosts
-- with per_node ranks a host, else rank r mod the GPUs.
local function gpu_of(topo, r, per_node)
  local gpus = topo.gpus or {}
  if per_node then
    local host, dev = r // per_node, r % per_node
    for _, g in ipairs(gpus) do if g.host == host and g.dev == dev then return g.index end end
  end
  return r % math.max(#gpus, 1)
end

-- What joins the GPUs of a group: the slowest link between two of them.
local RANK_OF = { X = 0, NV = 1, PIX = 2, PXB = 3, PHB = 4, NODE = 5, SYS = 6, NET = 7 }
local function group_link(topo, gpus)
  local rows = (topo.matrix or {}).rows or {}
  local worst, wr = "same GPU", -1
  for _, a in ipairs(gpus) do
    for _, b in ipairs(gpus) do
      if a ~= b then
        local l = tostring((rows[a + 1] or {})[b + 1])
        local k = RANK_OF[l:match("^NV") and "NV" or l] or 8
        if k > wr then worst, wr = l, k end
      end
    end
  end
  return worst
end

-- rank -> (its place in its TP group, in its DP group) for an order, as
-- tp.coords (labs/lib/tp) gives it. The TP group's number is the DP place,
-- and the reverse.
local function coords(r, order)
  if order == "dp-tp" then return r // (RANKS // TPN), r % (RANKS // TPN) end
  return r % TPN, r // TPN
end

local function layout_rows(topo, order, per_node)
  local isl = islands(topo)
  local t = {}
  for r = 0, RANKS - 1 do
    local tpr, dpr = coords(r, order)
    local g = gpu_of(topo, r, per_node)
    local gi = (topo.gpus or {})[g + 1] or {}
    t[#t + 1] = { tostring(r), tostring(gi.host or 0), "GPU" .. g, tostring(isl[g] or "-"),
                  L("TP %d (rank %d of it)", dpr, tpr), L("DP %d (rank %d of it)", tpr, dpr) }
  end
  return t
end

local function groups_of(order)
  local tpg, dpg = {}, {}
  for r = 0, RANKS - 1 do
    local tpr, dpr = coords(r, order)
    tpg[dpr + 1] = tpg[dpr + 1] or {}
    table.insert(tpg[dpr + 1], r)
    dpg[tpr + 1] = dpg[tpr + 1] or {}
    table.insert(dpg[tpr + 1], r)
  end
  return tpg, dpg
end

local function links_of(topo, groups, per_node)
  local s = {}
  for i, g in ipairs(groups) do
    local gpus = {}
    for _, r in ipairs(g) do gpus[#gpus + 1] = gpu_of(topo, r, per_node) end
    s[i] = group_link(topo, gpus)
  end
  local uniq, seen = {}, {}
  for _, l in ipairs(s) do if not seen[l] then seen[l] = true; uniq[#uniq + 1] = l end end
  return table.concat(uniq, "/")
end

local function hosts_of(topo)
  local seen, n = {}, 0
  for _, g in ipairs(topo.gpus or {}) do if not seen[g.host] then seen[g.host] = true; n = n + 1 end end
  return math.max(n, 1)
end

-- Step 3's table of the two orders. One TP all-reduce's time is what the
-- question 'ratio' asks the learner to predict from the links: it shows
-- once the prediction is in, beside it (the progress keeps both).
local TP_AR_COL = 6
local function orders_table(lab, out)
  local p = tonumber(lab.answer("ratio") or "")
  local rows = {}
  for i, row in ipairs(out.rows) do
    local r = {}
    for k, v in ipairs(row) do r[k] = v end
    if not p then r[TP_AR_COL] = L("predict 'ratio' first") end
    rows[i] = r
  end
  local a, b = out.runs["tp-dp"].row, out.runs["dp-tp"].row
  if p and a and b and a.tp_ms and b.tp_ms and a.tp_ms > 0 then
    lab.record("tp_ratio_predicted", p)
    lab.record("tp_ratio", b.tp_ms / a.tp_ms)
    rows[#rows + 1] = { L("across / inside"), "", "", "", "", L("%sx measured, %sx predicted", f2(b.tp_ms / a.tp_ms), f2(p)),
                        "", "" }
  end
  lab.table{ title = out.title, columns = { L("order"), L("TP groups"), L("TP links"), L("DP links"), L("step (ms)"),
                                            L("one TP all-reduce (ms)"), L("TP all-reduces / step"),
                                            L("DP all-reduce of the gradients (ms)") }, rows = rows }
  if p then out.shown = true
  else lab.log(L("one TP all-reduce's time shows once you have predicted 'ratio' from the links (press a)")) end
end

-- TP across nodes needs two nodes. A simulated machine of two nodes is
-- itself the step's machine; any other - a one-node preset, a real GPU or
-- node (the launcher, not the step, places real ranks on hosts) - runs the
-- step as a what-if on the SIMULATED 2x-dgx-h100 (lab.spmd's machine
-- option), so the step and its answers (answers-2x-dgx-h100.txt) are the
-- same on every backend.
local TWO_NODES = "2x-dgx-h100"

steps[#steps + 1] = {
  id = "topology", title = "TP inside a node, TP across nodes",
  text = "steps/03-topology.md",
  exercise = "megatron.lua",            -- step 2's: the timed model runs your operators
  questions = { { id = "ratio", ask = "Predict from the links, before the table shows it: one TP all-reduce across the two "
                                    .. "nodes takes how many times as long as inside a node (within 25 %)?" },
                { id = "tp_ms", ask = "With TP across the nodes, how many ms of each step are TP all-reduces?" } },
  hints = { "ratio: per GPU, NVLink carries 450 GB/s each way (lab 1); each GPU of a DGX H100 has its own 400 Gb/s "
            .. "InfiniBand NIC, 50 GB/s each way. " ..
            "How many GPUs of each TP group sit in one node, so how many NICs carry the group's traffic between " ..
            "the nodes? Which algorithm runs inside a node, and which across (the step text)?",
            "tp_ms: the TP all-reduces run on the default stream between the layers' GEMMs, so nothing hides them: " ..
            "their count per step times one all-reduce's time.",
            "ratio: in the dp-tp order a TP group has two GPUs in each node. Inside a node the ring moves 2(n-1)/n "
            .. "of the buffer per GPU at NVLink's rate; across, NVLSTree sends each node's sum over the network "
            .. "once, through those two GPUs' NICs. tp_ms: the dp-tp row, once it shows, has both factors." },
  run = function(lab)
    local whatif
    local topo = lab.backend.simulated and lab.topo() or nil
    if not (topo and hosts_of(topo) >= 2) then
      whatif = TWO_NODES
      topo = lab.topo{ machine = whatif }
      local g = lab.backend.gpus or 1
      local here = lab.backend.simulated and lab.backend.machine or L("this machine")
      lab.log(g == 1 and L("TP across nodes needs two nodes, and %s has one: this step runs on the SIMULATED %s (two nodes of 8 H100s) instead; this machine has %d GPU",
                           here, whatif, g)
              or L("TP across nodes needs two nodes, and %s has one: this step runs on the SIMULATED %s (two nodes of 8 H100s) instead; this machine has %d GPUs",
                   here, whatif, g))
    else
      say_ranks(lab)
    end
    local where = "SIMULATED " .. (whatif or lab.backend.machine or "?")
    local per_node = TPN
    for _, order in ipairs{ "tp-dp", "dp-tp" } do
      lab.table{ title = L("ranks on GPUs, order %s%s, on the %s", order,
                           order == "tp-dp" and L(" (TP fastest: step 1's groups)") or L(" (DP fastest)"), where),
                 columns = { L("rank"), L("node"), "GPU", L("NVLink island"), L("TP group"), L("DP group") },
                 rows = layout_rows(topo, order, per_node) }
    end
    local runs, t = {}, {}
    for i, order in ipairs{ "tp-dp", "dp-tp" } do
      lab.progress((i - 1) / 2, L("your megatron.lua, Llama-2-70B's layers, %s, on the %s", order, where))
      local res = spmd(lab, lab.exercise, { "time", order }, { per_node = per_node, machine = whatif })
      local row = row_of(res, 0)
      local tpg, dpg = groups_of(order)
      runs[order] = { res = res, row = row }
      local gl = {}
      for _, g in ipairs(tpg) do gl[#gl + 1] = list(g) end
      t[#t + 1] = { order, table.concat(gl, " "), links_of(topo, tpg, per_node), links_of(topo, dpg, per_node),
                    f2(row and row.step_ms), f3(row and row.tp_ms), tostring(row and row.tp_calls),
                    f2(row and row.dp_ms) }
    end
    local r0 = runs["tp-dp"].row or {}
    local gpus = lab.backend.gpus or 1
    local here = whatif and (gpus == 1 and L(": this machine has %d GPU", gpus) or L(": this machine has %d GPUs", gpus)) or ""
    local out = { runs = runs, rows = t,
                  title = L("the same model, 2 layers of Llama-2-70B's shapes (SwiGLU MLP of 28672), %d micro-batches of 4096 tokens per step; per rank: activations %s MiB, gradients %s MiB (%s%s)",
                            MICRO, f2(r0.act_bytes and r0.act_bytes / 2^20), f2(r0.grad_bytes and r0.grad_bytes / 2^20),
                            where, here) }
    orders_table(lab, out)
    local a, b = runs["tp-dp"].row, runs["dp-tp"].row
    if a and b then
      lab.record("step_ms_tp_inside", a.step_ms)
      lab.record("step_ms_tp_across", b.step_ms)
    end
    return out
  end,
  check = function(lab, out)
    -- answering re-judges the kept run: the times the prediction unlocks
    -- are drawn here then, once
    if lab.answer("ratio") and not out.shown then orders_table(lab, out) end
    for order, r in pairs(out.runs) do
      if not r.res.ok then return broken(r.res, L("the %s run of your megatron.lua", order)) end
      local want = 4 * LAYERS * MICRO
      if r.row.tp_calls ~= want then
        return { ok = false, msg = L("your megatron.lua made %d TP all-reduces per step (%d layers, %d micro-batches): pass step 2 first",
                                     r.row.tp_calls, LAYERS, MICRO),
                 saw = tostring(r.row.tp_calls), wanted = tostring(want), where = "megatron.lua" }
      end
    end
    local a, b = out.runs["tp-dp"].row, out.runs["dp-tp"].row
    lab.log(L("step time: TP inside a node %.2f ms, TP across the nodes %.2f ms (x%.2f)", a.step_ms,
              b.step_ms, b.step_ms / a.step_ms))
    return {
      checks.close{ value = lab.answer("ratio"), expected = b.tp_ms / a.tp_ms, rtol = 0.25, answer = true,
                    what = L("your prediction of one TP all-reduce, across the nodes / inside a node"),
                    where = L("the links in the step text: NVLink per GPU, and how many NICs carry a TP group between the nodes") },
      checks.close{ value = lab.answer("tp_ms"), expected = b.tp_calls * b.tp_ms, rtol = 0.1, answer = true,
                    what = L("ms of TP all-reduces per step, TP across the nodes"),
                    where = L("results pane (3): the dp-tp row") },
    }
  end,
}

-- Step 4: the note's 70B on 256 H100s as DP x TP x PP, simulated in one
-- process (timing-only); its run and check are whatif.lua's.
steps[#steps + 1] = {
  id = "whatif", title = "What-if at scale: 70B on 256 H100s (timing-only)",
  text = "steps/04-whatif.md",
  questions = {
    { id = "layout_a", ask = "Your first layout of the 256 GPUs, DPxTPxPP (e.g. 16x4x4)?" },
    { id = "layout_b", ask = "Your second layout, DPxTPxPP?" },
    { id = "fastest", ask = "Of the three (the note's 8x8x4 and yours), which layout that fits is fastest?" },
    { id = "why", ask = "In the slowest of the three, which axis's traffic costs the most time per step, and over " ..
                        "which link (e.g. PP InfiniBand)?" } },
  run = function(lab) return lab.load("whatif.lua").run(lab) end,
  check = function(lab, out) return lab.load("whatif.lua").check(lab, out) end,
}

return {
  title    = "TP x DP: 8 GPUs as 4 TP x 2 DP",
  summary  = "The groups made with comm:split; the Megatron layer's f and g operators and the gradient sync, checked " ..
             "against the unsharded layer and the flight recorders; TP inside a node vs across nodes",
  backends = "sim (any preset: 8 ranks share the GPUs there are) and cuda (8 GPUs, or ranks as emulated nodes); " ..
             "step 3 needs two nodes: on 2x-dgx-h100 it runs there, anywhere else on the SIMULATED 2x-dgx-h100",
  ranks    = RANKS,
  steps    = steps,
}
