-- wrong: folds the extra ranks in but never hands them the result: they keep
--        their own data
-- verdict: on 3 ranks
-- verdict: is not the sum of all
local rd = {}

function rd.all_reduce(comm, buf, scratch)
  local n, r = comm:size(), comm:rank()
  local p = 1
  while p * 2 <= n do p = p * 2 end
  -- the ranks past p fold into a partner below p, and wait for the result
  if r >= p then
    comm:send(buf, r - p)
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
end

return mgpu.import("coll.harness").run(rd, mgpu.args)
