-- wrong: gives broadcast all_gather's factor ("the root's data reaches the
--        n-1 others"), but a broadcast's ring passes the whole buffer over
--        every link once
-- verdict: your broadcast busbw is wrong
-- verdict: that is all_gather's factor, not broadcast's
return function(coll, algbw, n)
  if coll == "all_reduce" then
    return algbw * 2 * (n - 1) / n
  elseif coll == "all_gather" or coll == "broadcast" then
    return algbw * (n - 1) / n
  end
  error("busbw.lua: unknown collective " .. tostring(coll))
end
