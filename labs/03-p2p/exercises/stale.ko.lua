-- stale.lua - 노트의 event 예제, 그리고 event 가 없을 때의 stale-data bug
-- (lab 3, step "events"). rank 하나; GPU0 이 만들고 GPU1 이 쓴다 (GPU 가
-- 하나면 두 stream 이 모두 GPU0 에 있다 - bug 는 같다).
--
--   with torch.cuda.device(0):
--       out0 = layer0(x)
--       e0 = torch.cuda.Event(); e0.record()     # GPU0 stream 에 마커
--   with torch.cuda.device(1):
--       e0.wait()                                # GPU1 stream 이 e0 끝까지 대기
--       out1 = layer1(out0.to(1))
--
-- 여기서 "layer0" 은 GPU0 의 `produce` stream 위의 fill 이고, "out0.to(1)" 은
-- GPU1 의 `consume` stream 위의 날 peer copy 다 (PyTorch 의 .to(1) 은 두
-- device 의 current stream 사이를 스스로 막아 주지만, 다른 stream 위의 날
-- copy 는 아무도 막아 주지 않는다). 노트처럼 event 로 GPU1 이 GPU0 의 결과를
-- 기다리게 한다. TODO 로 표시한 부분만 바꾸면 된다.

local n = 1 << 24                                   -- float 64 MiB
local dev = mgpu.device
local other = mgpu.device_count > 1 and (dev + 1) % mgpu.device_count or dev

local produce = mgpu.stream()                       -- GPU0 의 stream
local consume = mgpu.stream{device = other}         -- GPU1 의 stream
local x <close> = mgpu.tensor{count = n, device = dev, name = "x"}     -- out0, GPU0 위
local y <close> = mgpu.tensor{count = n, device = other, name = "y"}   -- 그 copy, GPU1 위
x:fill{kind = "const", value = 0, stream = produce}
y:fill{kind = "const", value = 0, stream = consume}
produce:synchronize(); consume:synchronize()

-- (lab 의 probe: GPU0 이 언제 끝났고 GPU1 이 언제 시작했는지 - 그대로 둔다)
local probe_done = mgpu.event{timing = true, device = dev}
local probe_start = mgpu.event{timing = true, device = other}

-- GPU0: out0 = layer0(x) - produce stream 위에서 여덟 번의 일
for pass = 1, 8 do x:fill{kind = "random", seed = pass, stream = produce} end
probe_done:record(produce)

-- TODO: 노트의 e0.record() / e0.wait():
--   GPU0 에 event 를 만들고 (mgpu.event()), `produce` 에 record 하고,
--   `consume` 이 그것을 기다리게 한다 (consume:wait(e) 또는 e:wait(consume)).

probe_start:record(consume)
mgpu.copy(y, x, {stream = consume})                 -- out0.to(1), GPU1 의 stream 위에서
local seen = y:checksum(consume)                    -- GPU1 의 다음 kernel 이 읽을 것

-- (정답: 모든 일이 끝난 뒤)
produce:synchronize(); consume:synchronize()
local truth = x:checksum(produce)
local ok, gap = pcall(function() return probe_done:elapsed(probe_start) end)
mgpu.result{seen = seen, truth = truth, gap_ms = ok and gap or nil,
            gap_error = (not ok) and tostring(gap) or nil, from = dev, to = other}
