-- train_log.lua - lab 8, 실습 1: loss 를 log 하는 data-parallel 학습 loop.
-- 모든 rank 가 자기 shard 로 gradient 를 계산하고, rank 들이 all_reduce 로
-- 그것을 평균하고, 본 sample 수를 센다. `log_every` step 마다 모든 rank 에
-- 걸친 평균 loss 를 찍는다.
--
-- 이 script 는 hang 한다. 돌려 보고 각 rank 의 flight record (results pane) 를
-- 읽는다: 한 rank 만 하고 나머지는 하지 않은 collective 와, 그것을 부른 줄을
-- 찾는다. 그다음 모든 rank 가 같은 collective 를 같은 순서로 부르도록 고친다 -
-- 그러면서도 rank 0 은 여전히 모든 rank 에 걸친 평균 loss 를 log 해야 한다.
-- 끝의 mgpu.result 는 그대로 둔다: check 가 그것을 읽는다.
local comm = mgpu.comm()
local steps, log_every = 6, 3
local g <close> = mgpu.tensor(4096)      -- 이 rank 의 gradient (대역)
local seen <close> = mgpu.tensor(1)      -- 본 sample 수, rank 들에 걸쳐 합산
local loss_t <close> = mgpu.tensor(1)
local losses, logged = {}, {}

for step = 1, steps do
  -- 이 rank 의 shard 로 forward + backward (대역)
  local loss = 2.0 / step + 0.01 * mgpu.rank
  losses[step] = loss
  g:fill{seed = 1000 * step + mgpu.rank}
  comm:all_reduce(g, "sum")              -- rank 들에 걸쳐 합산한 gradient

  if mgpu.rank == 0 and step % log_every == 0 then
    loss_t:fill(loss)
    comm:all_reduce(loss_t, "sum")       -- log 용 평균 loss
    local mean = loss_t:get(0) / mgpu.world
    logged[#logged + 1] = { step = step, loss = mean }
    print(string.format("step %d  loss %.4f", step, mean))
  end

  seen:fill(32)                          -- 이 rank 의 batch
  comm:all_reduce(seen, "sum")
end

mgpu.result{ rank = mgpu.rank, checksum = g:checksum(), losses = losses, logged = logged, samples = seen:get(0) }
