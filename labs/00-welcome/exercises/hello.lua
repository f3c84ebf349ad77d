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

local n = 1024

-- TODO 1: which rank am I, and how many ranks are there?
local rank  = 0      -- replace with this rank's number
local world = 1      -- replace with the number of ranks

local x <close> = mgpu.tensor(n)   -- 1024 floats on this rank's GPU

-- TODO 2: fill x with random data, seed = this rank's number.
-- (kind = "const" puts the same value everywhere - not what we want.)
x:fill{kind = "const", value = 0}

mgpu.log("hello from rank " .. rank .. " of " .. world)
mgpu.result{rank = rank, world = world, checksum = x:checksum()}
