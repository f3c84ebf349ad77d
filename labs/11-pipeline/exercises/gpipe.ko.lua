-- gpipe.lua - lab 11, step 1: GPipe. 모든 micro-batch 가 네 stage 를 거쳐
-- forward 로 간 다음, 모두 돌아온다.
--
-- 이 rank 는 decoder 의 stage 하나다 (labs/lib/nn/pipe.lua):
--   st.stage, st.stages, st.m      이 stage (0..3), 4, micro-batch 수
--   st.prev, st.next               이웃의 rank, 양 끝에서는 nil
--   st.comm                        world communicator: comm:send(t, peer),
--                                  comm:recv(t, peer)
--   st:buffer()                    receive 할 새 tensor
--   st:forward(i, x) -> y          x: 이전 stage 가 보낸 것 (첫 stage 에서는
--                                  nil); y: 다음으로 보낼 것 (마지막에서는 nil)
--   st:backward(i, dy) -> dx       dy: 다음 stage 가 돌려보낸 gradient
--                                  (마지막에서는 nil); dx: 돌려보낼 것
--                                  (첫 stage 에서는 nil)
local pipe = mgpu.import("nn.pipe")

local function gpipe(st)
  -- TODO: 각 stage 는 자기가 처리할 것을 이웃에서 receive 하고, 만든 것을
  -- 넘겨 send 한다: activation 은 앞으로, gradient 는 뒤로.
  for i = 1, st.m do                                   -- forward 전부 ...
    local y = st:forward(i, nil)
  end
  for i = st.m, 1, -1 do                               -- ... 그다음 backward 전부
    local dx = st:backward(i, nil)
  end
end

pipe.run{schedule = gpipe, args = mgpu.args}
