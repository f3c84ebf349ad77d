-- prefetch.lua - lab 5, step 3: 다음 unit 의 parameter 를 prefetch 한다.
--
-- FSDP 는 각 unit 이 default stream 에서 돌기 전에 이 hook 을 부른다:
--   before_forward(units, i, stream)   forward,  i = 1 .. #units
--   before_backward(units, i, stream)  backward, i = #units - 1 .. 1 (head 의
--                                      parameter 는 forward 때부터 gather 된
--                                      채로 남는다)
-- units[i] 는 unit 이다: u.full 은 gather 된 flat parameter (shard 만 있는
-- 동안은 nil), u:all_gather(stream) 은 u.full 을 할당하고 all-gather 를
-- `stream` (communicator 의 것) 에, default stream 에 지금까지 queue 된 것
-- 뒤에 queue 한다. hook 이 return 하면 unit 의 계산이 default stream 에 queue
-- 된다: 그 계산은 `stream` 에서 all-gather 가 끝난 뒤에만 u.full 을 읽을 수
-- 있다 - `stream` 에 record 하고 default stream 이 기다리는 event 로.
--
-- 지금은 각 hook 이 자기 unit 을 gather 하고 그것을 기다린다: all-gather 동안
-- GPU 에서 다른 일은 돌지 않는다 (timeline 에 틈이 보인다). 각 hook 이
-- return 하기 전에 - 현재 unit 의 계산이 queue 되기 전에 - `stream` 에 다음
-- unit 의 all-gather 도 내보내게 하라 (forward: units[i + 1]; backward:
-- units[i - 1]). 그러면 둘이 겹친다. 미리 gather 한 unit 을 두 번 gather
-- 하면 안 된다.
local train = mgpu.import("fsdp.train")

local M = {}

-- u 의 all-gather 를 `stream` 에 queue 하고 그 끝을 표시하는 event 를 기억한다.
local function gather(u, stream)
  u:all_gather(stream)
  u.ready = mgpu.event()
  u.ready:record(stream)
end

function M.before_forward(units, i, stream)
  local u = units[i]
  if not u.full then gather(u, stream) end
  mgpu.default_stream():wait(u.ready)
  -- TODO: units[i + 1] 을 prefetch
end

function M.before_backward(units, i, stream)
  local u = units[i]
  if not u.full then gather(u, stream) end
  mgpu.default_stream():wait(u.ready)
  -- TODO: units[i - 1] 을 prefetch
end

train.run{args = mgpu.args, hooks = M}
