-- reducer.lua - lab 4, step 3: DDP 의 gradient reducer 를 PyTorch 한 단계
-- 아래에서 직접 쓴다.
--
-- backward 는 p.grad 가 확정되는 순간 reducer:ready(p) 를 부른다 (마지막
-- layer 부터); optimizer step 은 reducer:wait() 뒤에 온다. p 는
-- {name =, value = tensor, grad = tensor} 다. reducer 가 할 일:
--   1. gradient 를 backward 가 만드는 순서 - parameter 의 역순 - 로 최대
--      opts.bucket_mb MiB 의 bucket 에 채운다 (f32: element 당 4 byte).
--      bucket 마다 flat tensor 하나 (opts.tensor(count): model 의 tensor 와
--      같은 f32); t:flat(first, n) 은 그 일부의 view, p.grad:view{n} 은
--      gradient 의 flat view 이고, mgpu.copy(dst, src) 가 copy 한다.
--   2. bucket 의 마지막 gradient 가 준비되면 그 all-reduce
--      (comm:all_reduce(flat, "avg", stream)) 를 communicator 의 stream
--      (comm:stream()) 에 launch 한다 - 단, default stream 에서 도는 bucket
--      으로의 copy 가 끝난 뒤에 (event 하나).
--   3. wait() 에서: 모든 bucket 의 reduce 가 끝날 때까지 default stream 을
--      기다리게 하고 (bucket 마다 event 하나), 평균값을 p.grad 로 다시 copy
--      하고, 다음 step 을 준비한다.
-- 그때까지 이 reducer 는 아무것도 하지 않는다: 각 rank 는 자기 shard 로만 학습한다.
local train = mgpu.import("ddp.train")

local Reducer = {}
Reducer.__index = Reducer

function Reducer.new(params, comm, opts)
  local self = setmetatable({comm = comm, stream = comm:stream(), buckets = {}, where = {}}, Reducer)
  -- TODO: bucket 을 만든다 (역순, 각각 최대 opts.bucket_mb MiB)
  return self
end

function Reducer:ready(p)
  -- TODO: p.grad 를 자기 bucket 으로 copy; bucket 이 다 차면 all-reduce
end

function Reducer:wait()
  -- TODO: 모든 bucket 을 기다리고, 평균한 gradient 를 다시 copy
end

train.run{mode = "ddp", reducer = Reducer, args = mgpu.args}
