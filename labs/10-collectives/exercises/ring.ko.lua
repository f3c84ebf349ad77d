-- ring.lua - lab 10, 실습 1, 2, 3: NCCL 이 돌리는 collective 를
-- point-to-point 호출로 직접 만든다.
--
-- 모든 함수가 받는 것
--   comm     communicator: comm:rank(), comm:size(), comm:send(t, peer),
--            comm:recv(t, peer); mgpu.group(function() ... end) 는 그 안의
--            send 와 receive 를 함께 돌린다
--   chunks   이 rank 의 buffer 를 comm:size() 조각으로 자른 것, chunks[0] ..
--            chunks[n-1] (rank 처럼 0-based); buffer 가 나누어 떨어지지
--            않으면 앞쪽 조각들이 element 하나씩 더 길다
--   scratch  가장 긴 chunk 만큼 긴 tensor; scratch:flat(0, len) 은
--            그 앞의 len 개 element
-- mgpu.nn.add(a, b, y) 는 y = a + b 를 계산한다 (y 가 a 여도 된다).
-- send 와 recv 만 쓴다: lab 은 communicator 의 flight record 를 읽는다.
local ring = {}

-- 실습 1 - ring reduce-scatter: 끝나면 rank r 의 chunks[r] 은 모든 rank 의
-- chunks[r] 의 합을 갖는다. n-1 step; step 마다 모든 rank 가 chunk 하나를
-- 다음 rank (r + 1) % n 으로 보내고, 이전 rank 에서 받은 chunk 를 자기
-- chunk 하나에 더한다.
function ring.reduce_scatter(comm, chunks, scratch)
  local n, r = comm:size(), comm:rank()
  -- TODO
end

-- 실습 2 - ring all-gather: rank r 은 (reduce 된) 자기 chunks[r] 로 시작한다;
-- 끝나면 모든 rank 가 모든 rank 의 chunk 를 갖는다. n-1 step.
function ring.all_gather(comm, chunks, scratch)
  local n, r = comm:size(), comm:rank()
  -- TODO
end

-- 실습 2 - 위의 둘로 만드는 all-reduce.
function ring.all_reduce(comm, chunks, scratch)
  -- TODO
end

-- 실습 3 - 작은 message 를 위한 recursive doubling all-reduce. buf 는
-- buffer 전체 (chunk 가 아니다), scratch 는 buf 만큼 긴 tensor. n 이 2 의
-- 거듭제곱이면 log2(n) step; step k 에서 rank r 은 rank r xor 2^k (Lua: r ~ d)
-- 와 buffer 전체를 맞바꾸고 받은 것을 더한다. n 이 2 의 거듭제곱이 아니면,
-- p 를 n 보다 작은 가장 큰 2 의 거듭제곱이라 하자: 먼저 r >= p 인 각 rank 가
-- 자기 buffer 를 rank r - p 에 넘기고 그 rank 가 더한다; p 개 rank 가 doubling
-- 을 한다; 그다음 r < n - p 인 각 rank 가 결과를 rank r + p 에 돌려준다.
function ring.doubling(comm, buf, scratch)
  local n, r = comm:size(), comm:rank()
  -- TODO
end

return mgpu.import("coll.harness").run(ring, mgpu.args)
