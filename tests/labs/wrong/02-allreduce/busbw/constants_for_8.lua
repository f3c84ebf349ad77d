-- wrong: reads the factors off an 8-rank run (busbw / algbw = 1.75 for
--        all_reduce, 0.875 for all_gather) and writes them down as constants:
--        right on 8 ranks only
-- verdict: wrong at n = 3
-- verdict: a constant fits one rank count only
return function(coll, algbw, n)
  if coll == "all_reduce" then
    return algbw * 1.75
  elseif coll == "all_gather" then
    return algbw * 0.875
  elseif coll == "broadcast" then
    return algbw
  end
  error("busbw.lua: unknown collective " .. tostring(coll))
end
