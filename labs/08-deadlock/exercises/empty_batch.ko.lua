-- empty_batch.lua - lab 8, 실습 2: epoch 의 마지막 step. dataset 이 딱
-- 나눠떨어지지 않는다: 마지막 step 에서 마지막 rank 의 shard 가 비어 있고,
-- 이 loop 는 계산할 것이 없으면 gradient all-reduce 를 건너뛴다. 나머지
-- rank 들은 그 all-reduce 에서 이 rank 를 기다린다.
--
-- 돌려 보고, flight record 에서 rank 와 collective 를 찾은 다음, 모든 rank 가
-- 부르는 collective 로 고친다: sample 이 없는 rank 도 0 gradient 를 보태며
-- 참여하고, gradient 는 모든 rank 의 sample 수로 나눈다 (그래야 빈 shard 가
-- 평균을 치우치게 하지 않는다).
-- 끝의 mgpu.result 는 그대로 둔다: check 가 그것을 읽는다.
local comm = mgpu.comm()
local batch, steps = 8, 4
-- 모든 rank 에 걸친 step 당 sample: 꽉 찬 step 들, 그다음 rank 하나가 모자란 step
local dataset = batch * mgpu.world * (steps - 1) + batch * (mgpu.world - 1)
local g <close> = mgpu.tensor(4096)
local nt <close> = mgpu.tensor(1)
local epoch_loss <close> = mgpu.tensor(1)
local rows = {}

for step = 1, steps do
  local first = (step - 1) * batch * mgpu.world + mgpu.rank * batch
  local n = math.max(0, math.min(batch, dataset - first))   -- 이 rank 의 sample

  nt:fill(n)
  comm:all_reduce(nt, "sum")                  -- 이 step 의 모든 rank 의 sample
  local total = nt:get(0)

  if n > 0 then
    g:fill{kind = "const", value = step + mgpu.rank}       -- sample 당 gradient n 개의 합 / n
    local mine = g:get(0) * n
    g:fill{kind = "const", value = mine}                   -- 이 rank 의 sample 에 걸친 합
    comm:all_reduce(g, "sum")                 -- 모든 rank 의 gradient
    rows[#rows + 1] = { step = step, n = n, mine = mine, total = total, avg = g:get(0) / total }
  end
end

epoch_loss:fill(1.0 + mgpu.rank)
comm:all_reduce(epoch_loss, "sum")            -- epoch 의 loss, log 용
mgpu.result{ rank = mgpu.rank, rows = rows, checksum = g:checksum() }
