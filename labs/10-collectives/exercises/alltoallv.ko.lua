-- alltoallv.lua - lab 10, 실습 5: mixture-of-experts layer 의 token 교환.
-- rank r 은 자기 token 을 expert 에 route 했다: 그중 send_counts[j] 개
-- (j = 0 .. n-1) 가 rank j 의 expert 로 가고, `tokens` 안에 block 으로
-- 차례로 놓여 있다 (rank 0 의 block 이 먼저). rank 마다 route 가 다르므로,
-- rank r 은 각 rank 에서 token 이 몇 개 올지 모른다 -
-- 물어보기 전까지는.
--
-- exchange(comm, tokens, send_counts) 를 쓴다: table recv[j] (j = 0 .. n-1,
-- 0-based) 를 돌려주는데, recv[j] 는 rank j 가 이 rank 로 보낸 token 을 담은
-- tensor 다 (recv[r] 은 이 rank 가 자기 자신에게 보낸 block).
--   comm:alltoall(send, recv)   모든 rank 에서 같은 count: send 의 block j 는
--                               rank j 로 가고, recv 의 block j 는 j 에서 왔다
--   mgpu.tensor(count, "i32"), t:set(i, v), t:to_table()  (set 은 0-based,
--                               table 은 1-based), t:flat(first, n)
--   comm:send / comm:recv 는 mgpu.group(function() ... end) 안에서
local HIDDEN = 64   -- token 하나의 f32 element 수

local function exchange(comm, tokens, send_counts)
  local n, r = comm:size(), comm:rank()
  local recv = {}
  -- TODO: 1. 모든 rank 에게 나에게서 token 을 몇 개 받는지 알리고, 나는 각
  --          rank 에서 몇 개 받는지 알아낸다
  --       2. rank 마다 receive buffer 의 크기를 정하고, token 을 교환한다
  return recv
end

---------------------------------------------------------------------------
-- router 와 check (그대로 둔다).
local comm = mgpu.comm()
local n, r = comm:size(), comm:rank()

-- rank `src` 가 rank `dst` 로 route 하는 token 수 (1 에서 9: 일부러 고르지 않다)
local function routed(src, dst) return 1 + (src * 7 + dst * 3 + src * dst * 5) % 9 end

local send_counts, total = {}, 0
for j = 0, n - 1 do send_counts[j] = routed(r, j); total = total + send_counts[j] end
local tokens = mgpu.tensor{count = total * HIDDEN, name = "tokens"}
local at = 0
for j = 0, n - 1 do     -- rank j 로 갈 token 은 값 100*r + j 를 갖는다
  tokens:flat(at, send_counts[j] * HIDDEN):fill(100 * r + j)
  at = at + send_counts[j] * HIDDEN
end

local recv = exchange(comm, tokens, send_counts)

local pieces = {}
for j = 0, n - 1 do
  local want = routed(j, r) * HIDDEN
  local t = recv[j]
  local p = {from = j, ok = false}
  if type(t) ~= "userdata" then
    p.why = "recv[" .. j .. "] is not a tensor"
  elseif t:count() ~= want then
    p.why = string.format("recv[%d] holds %d elements; rank %d sent %d tokens for this rank", j, t:count(), j, want // HIDDEN)
  else
    local bad = t:compare(mgpu.tensor(want):fill(100 * j + r))
    p.ok = bad == 0
    p.why = bad == 0 and "right" or string.format("%d of %d elements are not rank %d's tokens for this rank", bad, want, j)
  end
  pieces[#pieces + 1] = p
end
mgpu.result{pieces = pieces}
