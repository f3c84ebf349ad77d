-- hello.lua - your first SPMD script (lab 0, step "hello").
--
-- Every rank runs this same file, the way torchrun runs one training script
-- per GPU. The only thing that differs between the ranks is what the `mgpu`
-- object tells them: mgpu.rank (0, 1, ...) and mgpu.world (how many ranks).
-- docs/spmd.md lists everything `mgpu` offers.
--
-- Task: make every rank report
--   rank     = its own rank number,
--   world    = the number of ranks,
--   checksum = the checksum of a tensor of 1024 floats filled with
--              deterministic random data whose seed is the rank number.
-- Save the file; the shell re-runs the check (or press r).
-- 할 일: 모든 rank 가 자기 rank 번호, rank 의 수, 그리고 seed = 자기 rank 로
-- 채운 random float 1024 개의 checksum 을 보고하게 한다.

local n = 1024

-- TODO 1: which rank am I, and how many ranks are there?
-- (나는 몇 번 rank 이고, rank 는 모두 몇 개인가?)
local rank  = 0      -- replace with this rank's number
local world = 1      -- replace with the number of ranks

local x <close> = mgpu.tensor(n)   -- 1024 floats on this rank's GPU

-- TODO 2: fill x with random data, seed = this rank's number.
-- (kind = "const" puts the same value everywhere - not what we want.)
-- (x 를 random 데이터로 채운다, seed = 이 rank 의 번호.)
x:fill{kind = "const", value = 0}

mgpu.log("hello from rank " .. rank .. " of " .. world)
mgpu.result{rank = rank, world = world, checksum = x:checksum()}
