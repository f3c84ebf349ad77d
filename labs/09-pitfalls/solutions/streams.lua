-- streams.lua - reference solution (lab 9, pitfall 3): compute and communication on the
-- legacy default stream. Each step runs a "kernel" (fills of a 64 MiB
-- activation) and the all_reduce of the previous step's gradients; the two
-- do not depend on each other, so they should overlap. They do not: both
-- use the LEGACY DEFAULT stream, which a device has only one of, and which
-- synchronises with every blocking stream.
--
-- Your task: give compute and communication their own non-blocking streams
-- (mgpu.stream(), or the communicator's comm:stream()). Only the two lines
-- marked TODO need to change.

local comm = mgpu.comm()
local compute = mgpu.stream()                         -- its own non-blocking stream
local comm_s = comm:stream()                        -- the communicator's own stream

local act <close> = mgpu.tensor(1 << 24)
local grad <close> = mgpu.tensor(1 << 22):fill{kind = "const", value = 1}
local steps = 4

-- compute alone, communication alone, then both together
local function timed(do_compute, do_comm)
  mgpu.synchronize()
  local begin, end_c, end_m = mgpu.event{timing = true}, mgpu.event{timing = true}, mgpu.event{timing = true}
  begin:record(compute)
  comm_s:wait(begin)
  for step = 1, steps do
    if do_compute then
      for pass = 1, 4 do act:fill{kind = "random", seed = step * 10 + pass, stream = compute} end
    end
    if do_comm then comm:all_reduce(grad, "sum", comm_s) end
  end
  end_c:record(compute)
  end_m:record(comm_s)
  end_c:synchronize(); end_m:synchronize()
  return math.max(begin:elapsed(end_c), begin:elapsed(end_m))
end

local t_compute = timed(true, false)
local t_comm = timed(false, true)
local t_both = timed(true, true)
local overlap = (t_compute + t_comm - t_both) / math.min(t_compute, t_comm)
mgpu.result{t_compute_ms = t_compute, t_comm_ms = t_comm, t_both_ms = t_both, overlap = overlap,
            legacy = (tostring(compute):find("legacy") or tostring(comm_s):find("legacy")) and true or false}
