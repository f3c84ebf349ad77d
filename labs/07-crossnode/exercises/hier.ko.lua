-- hier.lua - hierarchical all-reduce (lab 7, "hierarchical" step).
--
-- NCCL 의 flat ring 은 모든 byte 를 노드마다 network 로 두 번 보낸다.
-- hierarchical all-reduce 는 일의 대부분을 NVLink 위에 둔다:
--   1. 노드 안에서 reduce-scatter  (각 GPU 가 자기 노드 합의 1/node_size 를 갖는다)
--   2. 노드 사이에서 all-reduce    (모든 노드의 GPU k: 같은 shard 를 노드들에 걸쳐 더한다)
--   3. 노드 안에서 all-gather      (모든 GPU 가 모든 shard 를 돌려받는다)
-- 결과는 flat all_reduce 와 element 하나하나까지 같아야 한다.
--
-- mgpu.args: [1] 노드당 rank 수, [2] element 수. TODO 표시된 부분만
-- 바꾸면 된다.

local node_size = tonumber(mgpu.args[1]) or 1
local n = tonumber(mgpu.args[2]) or (1 << 20)
local world = mgpu.comm()
local node, local_rank = mgpu.rank // node_size, mgpu.rank % node_size

local x <close> = mgpu.tensor(n)
x:fill{seed = mgpu.rank}               -- 값은 k/1024: 어떤 순서로 더해도 같은 bit
local flat <close> = mgpu.tensor(n)
local hier <close> = mgpu.tensor(n)
hier:fill(0)
local shard <close> = mgpu.tensor(n // node_size)

-- TODO 1: world:split(color, key) 로 만드는 communicator 두 개:
--   intra: 이 노드의 rank 들              (color = node, key = local_rank)
--   inter: 각 노드의 GPU local_rank       (color = local_rank, key = node)
local intra, inter = nil, nil

local e = {}
for i = 1, 4 do e[i] = mgpu.event{timing = true} end

e[1]:record()
world:all_reduce(x, flat)              -- NCCL 의 flat all-reduce
e[2]:record()

e[3]:record()
-- TODO 2: intra 와 inter 로 x 를 hier 에 hierarchical all-reduce 한다
--   (reduce_scatter(x, shard), all_reduce(shard), all_gather(shard, hier)).
e[4]:record()
e[4]:synchronize()

-- 각 communicator 가 돌린 것, 그 flight recorder 에서 ("op:count ..."):
-- check 용 - 어느 단계가 어디서 돌았고, element 를 몇 개 옮겼는지.
local function ran(c)
  local t = {}
  for _, f in ipairs(c and c:flight(16) or {}) do t[#t + 1] = f.op .. ":" .. f.count end
  return table.concat(t, " ")
end

-- 각 communicator 에 누가 있는지 (world rank, 그 communicator 의 순서대로),
-- 위의 flight record 를 읽은 뒤에 물어본다.
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
