-- wrong: computes the factor with Lua's floor division //, which drops the
--        fraction: 2 (n-1) // n is 1 and (n-1) // n is 0 for every n
-- verdict: integer division
return function(coll, algbw, n)
  if coll == "all_reduce" then
    return algbw * (2 * (n - 1) // n)
  elseif coll == "all_gather" then
    return algbw * ((n - 1) // n)
  elseif coll == "broadcast" then
    return algbw
  end
  error("busbw.lua: unknown collective " .. tostring(coll))
end
