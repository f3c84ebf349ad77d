-- wrong: doubles over all n ranks as if n were a power of two: the partner
--        r xor 2^k does not exist on 3, 5 or 6 ranks
-- verdict: on 3 ranks
-- verdict: did not finish
local rd = {}

function rd.all_reduce(comm, buf, scratch)
  local n, r = comm:size(), comm:rank()
  local p = 1
  while p < n do p = p * 2 end
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
