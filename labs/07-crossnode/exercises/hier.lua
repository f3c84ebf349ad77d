-- hier.lua - a hierarchical all-reduce (lab 7, step "hierarchical").
--
-- NCCL's flat ring sends every byte over the network twice per node. A
-- hierarchical all-reduce keeps most of the work on NVLink:
--   1. reduce-scatter INSIDE the node  (each GPU ends with 1/node_size of the sum of its node)
--   2. all-reduce ACROSS nodes         (GPU k of every node: the same shard, summed over nodes)
--   3. all-gather INSIDE the node      (every GPU gets every shard back)
-- The result must equal the flat all_reduce, element for element.
--
-- mgpu.args: [1] ranks per node, [2] elements. Only the parts marked TODO
-- need to change.

local node_size = tonumber(mgpu.args[1]) or 1
local n = tonumber(mgpu.args[2]) or (1 << 20)
local world = mgpu.comm()
local node, local_rank = mgpu.rank // node_size, mgpu.rank % node_size

local x <close> = mgpu.tensor(n)
x:fill{seed = mgpu.rank}               -- values k/1024: every order of summing gives the same bits
local flat <close> = mgpu.tensor(n)
local hier <close> = mgpu.tensor(n)
hier:fill(0)
local shard <close> = mgpu.tensor(n // node_size)

-- TODO 1: two communicators, made with world:split(color, key):
--   intra: the ranks of this node     (color = node, key = local_rank)
--   inter: GPU local_rank of each node (color = local_rank, key = node)
local intra, inter = nil, nil

local e = {}
for i = 1, 4 do e[i] = mgpu.event{timing = true} end

e[1]:record()
world:all_reduce(x, flat)              -- NCCL's flat all-reduce
e[2]:record()

e[3]:record()
-- TODO 2: the hierarchical all-reduce of x into hier, with intra and inter
--   (reduce_scatter(x, shard), all_reduce(shard), all_gather(shard, hier)).
e[4]:record()
e[4]:synchronize()

-- What each communicator ran, from its flight recorder ("op:count ..."),
-- for the check: which step went where, and how many elements it moved.
local function ran(c)
  local t = {}
  for _, f in ipairs(c and c:flight(16) or {}) do t[#t + 1] = f.op .. ":" .. f.count end
  return table.concat(t, " ")
end

-- Who is in each communicator (world ranks, in its order), asked of it
-- after the flight records above were read.
local function members(c)
  if not c then return "" end
  local me <close> = mgpu.tensor(1)
  me:fill(mgpu.rank)
  local all <close> = mgpu.tensor(c:size())
  c:all_gather(me, all)
  local t = {}
  for i, v in ipairs(all:to_table()) do t[i] = string.format("%d", v) end
  return table.concat(t, ",")
end

local mismatches = hier:compare(flat)
local ran_world, ran_intra, ran_inter = ran(world), ran(intra), ran(inter)
mgpu.result{flat = flat:checksum(), mismatches = mismatches,
            intra_size = intra and intra:size() or 0, inter_size = inter and inter:size() or 0,
            ran_world = ran_world, ran_intra = ran_intra, ran_inter = ran_inter,
            intra_members = members(intra), inter_members = members(inter),
            t_flat_us = e[1]:elapsed(e[2]) * 1000, t_hier_us = e[3]:elapsed(e[4]) * 1000}
