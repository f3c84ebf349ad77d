-- streams.lua - pitfall 3 (lab 9): compute and communication on the
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
local compute = mgpu.stream{legacy_default = true}   -- TODO: a non-blocking stream
local comm_s = mgpu.stream{legacy_default = true}    -- TODO: a non-blocking stream (e.g. comm:stream())

local act <close> = mgpu.tensor(1 << 24)
local grad <close> = mgpu.tensor(1 << 22):fill{kind = "const", value = 1}
local steps = 4

-- compute alone, communication alone, then both together. The overlap is
-- measured, not inferred: in the run of both, events on each stream mark
-- where every step's compute and every all_reduce began and ended, and the
-- overlap is the time both streams were busy at once over the shorter of
-- the two streams' busy time - 0 % serialised, 100 % fully hidden, never
-- more (on a GPU the events' times are the device's, on the sim the
-- modelled ones).
local function ev() return mgpu.event{timing = true} end

-- Returns the run's time (ms) and, per stream, the spans {from, to} (ms
-- after the start) of its work.
local function timed(do_compute, do_comm)
  mgpu.synchronize()
  local begin, end_c, end_m = ev(), ev(), ev()
  begin:record(compute)
  comm_s:wait(begin)
  local marks = { compute = {}, comm = {} }
  for step = 1, steps do
    if do_compute then
      local a, b = ev(), ev()
      a:record(compute)
      for pass = 1, 4 do act:fill{kind = "random", seed = step * 10 + pass, stream = compute} end
      b:record(compute)
      marks.compute[step] = { a, b }
    end
    if do_comm then
      local a, b = ev(), ev()
      a:record(comm_s)
      comm:all_reduce(grad, "sum", comm_s)
      b:record(comm_s)
      marks.comm[step] = { a, b }
    end
  end
  end_c:record(compute)
  end_m:record(comm_s)
  end_c:synchronize(); end_m:synchronize()
  local spans = { compute = {}, comm = {} }
  for which, list in pairs(marks) do
    for i, m in ipairs(list) do spans[which][i] = { begin:elapsed(m[1]), begin:elapsed(m[2]) } end
  end
  return math.max(begin:elapsed(end_c), begin:elapsed(end_m)), spans
end

local function busy(list)
  local t = 0
  for _, s in ipairs(list) do t = t + (s[2] - s[1]) end
  return t
end

local t_compute = timed(true, false)
local t_comm = timed(false, true)
local t_both, spans = timed(true, true)
local both_busy = 0                               -- time both streams were busy at once
for _, c in ipairs(spans.compute) do
  for _, m in ipairs(spans.comm) do
    both_busy = both_busy + math.max(0, math.min(c[2], m[2]) - math.max(c[1], m[1]))
  end
end
local shorter = math.min(busy(spans.compute), busy(spans.comm))
local overlap = shorter > 0 and both_busy / shorter or 0
mgpu.result{t_compute_ms = t_compute, t_comm_ms = t_comm, t_both_ms = t_both, overlap = overlap,
            compute_busy_ms = busy(spans.compute), comm_busy_ms = busy(spans.comm), both_busy_ms = both_busy,
            legacy = (tostring(compute):find("legacy") or tostring(comm_s):find("legacy")) and true or false}
