-- busbw.lua - reference solution (lab 2, step "busbw"): nccl-tests'
-- bus-bandwidth factors (doc/PERFORMANCE.md of nccl-tests).

return function(coll, algbw, n)
  if coll == "all_reduce" then
    -- reduce-scatter + all-gather: every rank sends (and receives)
    -- 2 (n-1)/n of the buffer
    return algbw * 2 * (n - 1) / n
  elseif coll == "all_gather" then
    -- each rank receives the n-1 blocks it does not hold
    return algbw * (n - 1) / n
  elseif coll == "broadcast" then
    -- the whole buffer passes every link once
    return algbw
  end
  error("busbw.lua: unknown collective " .. tostring(coll))
end
