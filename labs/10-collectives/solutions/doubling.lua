-- doubling.lua - lab 10, exercise 3 (reference solution): all-reduce by
-- recursive doubling, the algorithm for small messages.
--
-- all_reduce(comm, buf, scratch): afterwards buf on every rank holds the sum
-- of every rank's buf. scratch is a tensor as long as buf.
--   comm:rank(), comm:size(), comm:send(t, peer), comm:recv(t, peer),
--   mgpu.group(function() ... end), mgpu.nn.add(a, b, y): y = a + b
--
-- With n a power of two: log2(n) steps; in step k rank r swaps its whole
-- buffer with rank r xor 2^k and adds what it got. Every rank sends the
-- whole buffer in every step - more bytes than the ring, far fewer steps.
-- When n is not a power of two (3, 5, 6, 7 ranks), let p be the largest
-- power of two below n: first each rank r >= p hands its buffer to rank
-- r - p, which adds it in; the p ranks double; then each rank r < n - p
-- hands the result back to rank r + p.
local rd = {}

function rd.all_reduce(comm, buf, scratch)
  local n, r = comm:size(), comm:rank()
  local p = 1
  while p * 2 <= n do p = p * 2 end
  -- the ranks past p fold into a partner below p, and wait for the result
  if r >= p then
    comm:send(buf, r - p)
    comm:recv(buf, r - p)
    return
  end
  if r < n - p then
    comm:recv(scratch, r + p)
    mgpu.nn.add(buf, scratch, buf)
  end
  -- log2(p) steps: swap the whole buffer with the partner 2^k away, add
  local dist = 1
  while dist < p do
    local partner = r ~ dist
    mgpu.group(function()
      comm:send(buf, partner)
      comm:recv(scratch, partner)
    end)
    mgpu.nn.add(buf, scratch, buf)
    dist = dist * 2
  end
  if r < n - p then comm:send(buf, r + p) end
end

return mgpu.import("coll.harness").run(rd, mgpu.args)
