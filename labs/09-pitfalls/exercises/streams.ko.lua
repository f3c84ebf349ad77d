-- streams.lua - pitfall 3 (lab 9): legacy default stream 위의 compute 와
-- 통신. 각 step 은 "kernel" (64 MiB activation 의 fill) 과 이전 step 의
-- gradient all_reduce 를 돌린다. 둘은 서로 의존하지 않으므로 겹쳐야 한다.
-- 그런데 겹치지 않는다: 둘 다 LEGACY DEFAULT stream 을 쓰는데, 이것은
-- device 에 하나뿐이고 모든 blocking stream 과 동기화한다.
--
-- 할 일: compute 와 통신에 각자의 non-blocking stream 을 준다
-- (mgpu.stream(), 또는 communicator 의 comm:stream()). TODO 표시된 두 줄만
-- 바꾸면 된다.
-- (아래 timing 부분은 바꾸지 않는다: check 가 그것으로 overlap 을 잰다.)

local comm = mgpu.comm()
local compute = mgpu.stream{legacy_default = true}   -- TODO: non-blocking stream 하나
local comm_s = mgpu.stream{legacy_default = true}    -- TODO: non-blocking stream 하나 (예: comm:stream())

local act <close> = mgpu.tensor(1 << 24)
local grad <close> = mgpu.tensor(1 << 22):fill{kind = "const", value = 1}
local steps = 4

-- compute 만, 통신만, 그다음 둘을 함께. overlap 은 추론이 아니라 측정한다:
-- 둘을 함께 돌리는 run 에서 각 stream 의 event 가 매 step 의 compute 와 매
-- all_reduce 의 시작과 끝을 표시하고, overlap 은 두 stream 이 동시에 바빴던
-- 시간을 두 stream 중 더 짧은 쪽의 바쁜 시간으로 나눈 값이다 - 0 % 는 직렬,
-- 100 % 는 완전히 숨겨짐, 그 이상은 없다 (GPU 에서 event 시각은 device 의
-- 것이고, sim 에서는 model 의 것이다).
--
local function ev() return mgpu.event{timing = true} end

-- run 의 시간 (ms) 과, stream 마다 그 일의 구간 {from, to} (시작부터 ms) 를
-- 돌려준다.
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
local both_busy = 0                               -- 두 stream 이 동시에 바빴던 시간
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
