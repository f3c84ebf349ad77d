-- wrong: sends every rank the first block of tokens (the offset never moves):
--        the sizes match only by chance, the tokens are the wrong ones
-- verdict: not rank
-- alltoallv.lua - lab 10, exercise 5: the token exchange of a mixture-of-
-- experts layer. Rank r routed its tokens to the experts: send_counts[j]
-- of them (j = 0 .. n-1) go to the expert on rank j, and they sit in
-- `tokens` one block after another (rank 0's block first). Every rank
-- routes differently, so rank r does not know how many tokens will come
-- from each rank - until it asks.
--
-- Write exchange(comm, tokens, send_counts): return a table recv[j] (j = 0
-- .. n-1, 0-based) where recv[j] is a tensor holding the tokens rank j sent
-- to this rank (recv[r] is this rank's own block for itself).
--   comm:alltoall(send, recv)   equal counts on every rank: block j of send
--                               goes to rank j, block j of recv came from j
--   mgpu.tensor(count, "i32"), t:set(i, v), t:to_table()  (0-based set,
--                               1-based table), t:flat(first, n)
--   comm:send / comm:recv inside mgpu.group(function() ... end)
local HIDDEN = 64   -- f32 elements a token

local function exchange(comm, tokens, send_counts)
  local n, r = comm:size(), comm:rank()
  -- 1. the counts: one i32 for every rank, through a fixed-size all-to-all
  local mine, theirs = mgpu.tensor(n, "i32"), mgpu.tensor(n, "i32")
  for j = 0, n - 1 do mine:set(j, send_counts[j]) end
  comm:alltoall(mine, theirs)
  local recv_counts = theirs:to_table()          -- 1-based: recv_counts[j + 1] from rank j
  -- 2. a buffer per sender, sized from what it said; then every send and
  --    receive in one group, so that no rank waits on another's order
  local recv = {}
  for j = 0, n - 1 do recv[j] = mgpu.tensor(recv_counts[j + 1] * HIDDEN) end
  mgpu.group(function()
    local at = 0
    for j = 0, n - 1 do
      local len = send_counts[j] * HIDDEN
      comm:send(tokens:flat(0, len), j)
      comm:recv(recv[j], j)
      at = at + len
    end
  end)
  return recv
end

---------------------------------------------------------------------------
-- The router and the check (leave as they are).
local comm = mgpu.comm()
local n, r = comm:size(), comm:rank()

-- how many tokens rank `src` routes to rank `dst` (1 to 9: uneven on purpose)
local function routed(src, dst) return 1 + (src * 7 + dst * 3 + src * dst * 5) % 9 end

local send_counts, total = {}, 0
for j = 0, n - 1 do send_counts[j] = routed(r, j); total = total + send_counts[j] end
local tokens = mgpu.tensor{count = total * HIDDEN, name = "tokens"}
local at = 0
for j = 0, n - 1 do     -- the tokens for rank j carry the value 100*r + j
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
