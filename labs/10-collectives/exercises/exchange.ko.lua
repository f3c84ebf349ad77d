-- exchange.lua - lab 10, 실습 4: 모든 rank 가 다음 rank 에 message 를 넘기고
-- 이전 rank 에서 하나를 받는다 - ring 의 한 step.
-- mgpu.args[1]: message 의 길이 (f32 element 수).
--
-- 지금 쓰인 대로는 모든 rank 가 먼저 send 하고 나중에 receive 한다. 돌려 보라:
-- message 가 작으면 끝나고, 크면 watchdog 이 끝낼 때까지 hang 한다. 어떤
-- 크기에서도, rank 가 몇 개이든 끝나게 고친다.
local comm = mgpu.comm()
local n, r = comm:size(), comm:rank()
local count = tonumber(mgpu.args[1] or "1024")
local right, left = (r + 1) % n, (r - 1) % n

local msg = mgpu.tensor{count = count, name = "msg"}:fill(r)     -- 내 message: 모든 element = 내 rank
local got = mgpu.tensor{count = count, name = "got"}:fill(-1)

comm:send(msg, right)
comm:recv(got, left)

-- 도착한 것 (lab 이 확인한다): 누구의 message 인지, 온전한지
local from = got:get(0)
local whole = mgpu.tensor(count):fill(from)
mgpu.result{got = math.tointeger(from) or from, mismatches = (got:compare(whole))}
