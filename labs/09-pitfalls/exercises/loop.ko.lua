-- loop.lua - pitfall 4 (lab 9): 숨은 host 동기화.
--
-- 학습 loop: 각 step 의 forward/backward (compute stream 위의 "kernel") 가
-- gradient 를 쓰고, 그 all_reduce 는 다음 step 이 계산하는 동안
-- communicator 의 stream 에서 돈다 - DDP 가 기대는 overlap. loop 는 매 step
-- g:get(0) 로 읽은 loss 도 찍는다. GPU 값을 읽는 것은 copy 이자 WAIT 다:
-- all_reduce 가 끝날 때까지 host 가 멈추므로, 다음 step 은 그제서야 queue 에
-- 들어가고 더 이상 아무것도 겹치지 않는다 (torch 의 loss.item(), tensor 의
-- print, .cpu() 도 마찬가지).
--
-- 할 일: 모든 step 의 loss 는 남기되 loop 안에서 기다리지 않는다: loss 는
-- loop 가 끝난 뒤 한 번에 읽는다 (step 마다 gradient buffer 가 따로 있으니
-- 모두 그대로 남아 있다; 마지막 all_reduce 를 한 번 기다리면 읽기의 순서가
-- 맞는다). TODO 표시된 부분만 바꾸면 된다. loss 값은 그대로여야 한다.
-- 참고: torch 에서는 torch.cuda.set_sync_debug_mode("warn") 이 이런 sync 를 경고한다.

local comm = mgpu.comm()
local compute, comm_s = mgpu.stream(), comm:stream()
local steps = 6
local act <close> = mgpu.tensor(1 << 24)
local grads = {}                                                 -- step 마다의 gradient
for step = 1, steps do grads[step] = mgpu.tensor(1 << 22) end
local read = {}                                                  -- host 가 보는 loss

-- 각 step 은 all_reduce 하나가 걸리는 만큼의 compute 를 받는다. 그래야 어느
-- 기계에서든 overlap 이 의미가 있다: H200 의 fill 은 microsecond 단위인데, 그
-- GPU 를 socket 으로 나눠 쓰는 rank 두 개의 all_reduce 는 millisecond 단위이고,
-- SIMULATED NVLink 기계에서는 둘이 더 가깝다. lab 은 원래 loop 를 돌릴 때 이것을
-- 한 번 재서 같은 fill 횟수를 내 run 에 넘긴다 (mgpu.args[1]). 그래서 두 loop 가
-- 같은 일을 한다; GPU 하나를 나눠 쓰는 rank 들은 번갈아 돌므로 각 timing 은
-- 다섯 번의 median 이다.
-- (실습의 일부가 아니다.)
local function elapsed_ms(stream, work)
  local t = {}
  for i = 1, 5 do
    local a, b = mgpu.event{timing = true}, mgpu.event{timing = true}
    a:record(stream); work(); b:record(stream); b:synchronize()
    t[i] = a:elapsed(b)
  end
  table.sort(t)
  return t[3]
end
comm:all_reduce(grads[1], "sum", comm_s)                        -- 첫 번째 호출이 connection 을 만든다
local passes = tonumber(mgpu.args[1])
if not passes then
  local fill_ms = elapsed_ms(compute, function() act:fill{kind = "random", seed = 1, stream = compute} end)
  local reduce_ms = elapsed_ms(comm_s, function() comm:all_reduce(grads[1], "sum", comm_s) end)
  passes = math.max(1, math.min(4000, math.floor(reduce_ms / math.max(fill_ms, 1e-6) + 0.5)))
end

mgpu.synchronize()
local begin, finish = mgpu.event{timing = true}, mgpu.event{timing = true}
begin:record(compute)
comm_s:wait(begin)
local reduced = {}
for step = 1, steps do
  local g = grads[step]
  for pass = 1, passes do act:fill{kind = "random", seed = step * 10 + pass, stream = compute} end
  g:fill{kind = "random", seed = step * 100 + mgpu.rank, stream = compute}       -- gradient
  local ready = mgpu.event()
  ready:record(compute)
  comm_s:wait(ready)
  comm:all_reduce(g, "sum", comm_s)                                              -- 다음 step 과 겹친다
  reduced[step] = mgpu.event()
  reduced[step]:record(comm_s)

  -- TODO: 숨은 host sync - loop 가 여기서 all_reduce 를 기다린다
  mgpu.default_stream():wait(reduced[step])
  read[step] = g:get(0)
end
-- TODO: (loop 가 끝난 뒤) GPU 에 남아 있는 loss 를 `read` 로 읽는다

compute:wait(reduced[steps])
finish:record(compute)
finish:synchronize()
for i = 1, steps do read[i] = string.format("%.6f", read[i] or 0 / 0) end
mgpu.result{step_ms = begin:elapsed(finish) / steps, losses = table.concat(read, " "), passes = passes}
