-- hello.lua - 첫 SPMD script (lab 0, step "hello").
--
-- 모든 rank 가 이 같은 파일을 돌린다. torchrun 이 GPU 마다 학습 script 하나를
-- 돌리는 것과 같다. rank 사이에 다른 것은 `mgpu` object 가 알려주는 것뿐이다:
-- mgpu.rank (0, 1, ...) 와 mgpu.world (rank 의 수).
-- `mgpu` 가 주는 모든 것은 docs/spmd.md 에 있다.
--
-- 할 일: 모든 rank 가 다음을 보고하게 한다
--   rank     = 자기 rank 번호,
--   world    = rank 의 수,
--   checksum = seed 가 rank 번호인 결정적 random 데이터로 채운
--              float 1024 개짜리 tensor 의 checksum.
-- 파일을 저장하면 shell 이 check 를 다시 돌린다 (또는 r 을 누른다).

local n = 1024

-- TODO 1: 나는 몇 번 rank 이고, rank 는 모두 몇 개인가?
local rank  = 0      -- 이 rank 의 번호로 바꾼다
local world = 1      -- rank 의 수로 바꾼다

local x <close> = mgpu.tensor(n)   -- 이 rank 의 GPU 위 float 1024 개

-- TODO 2: x 를 random 데이터로 채운다, seed = 이 rank 의 번호.
-- (kind = "const" 는 어디에나 같은 값을 넣는다 - 원하는 것이 아니다.)
x:fill{kind = "const", value = 0}

mgpu.log("hello from rank " .. rank .. " of " .. world)
mgpu.result{rank = rank, world = world, checksum = x:checksum()}
