-- wrong: uses the all_gather factor (n-1)/n for all_reduce too, forgetting
--        that all_reduce is a reduce-scatter and then an all-gather: each
--        rank moves the buffer's share twice
-- verdict: your all_reduce busbw is wrong
-- verdict: that is all_gather's factor, not all_reduce's
return function(coll, algbw, n)
  if coll == "all_reduce" or coll == "all_gather" then
    -- each rank receives the n-1 blocks it does not have
    return algbw * (n - 1) / n
  elseif coll == "broadcast" then
    return algbw
  end
  error("busbw.lua: unknown collective " .. tostring(coll))
end
