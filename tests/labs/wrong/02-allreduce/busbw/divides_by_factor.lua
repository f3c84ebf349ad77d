-- wrong: has algbw and busbw the wrong way round: divides algbw by the factor
--        (algbw = busbw x factor), so busbw comes out below algbw
-- verdict: algbw and busbw swapped
return function(coll, algbw, n)
  if coll == "all_reduce" then
    return algbw / (2 * (n - 1) / n)
  elseif coll == "all_gather" then
    return algbw / ((n - 1) / n)
  elseif coll == "broadcast" then
    return algbw
  end
  error("busbw.lua: unknown collective " .. tostring(coll))
end
