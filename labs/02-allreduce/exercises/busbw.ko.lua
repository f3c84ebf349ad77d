-- busbw.lua - algorithm bandwidth 에서 bus bandwidth 로 (lab 2, step "busbw").
--
-- nccl-tests 는 행마다 bandwidth 를 두 개 출력한다:
--   algbw = size / time             내 프로그램이 보는 값
--   busbw = algbw * factor          link 마다 나르는 양, rank 수와 상관없이
--                                   link 의 peak 와 비교할 수 있다
-- factor 는 collective 와 n, 즉 rank 의 수에 따라 달라진다.
--
-- 다음에 대해 busbw 를 계산하는 function 을 돌려준다
--   coll  = "all_reduce", "all_gather" 또는 "broadcast"
--   algbw = bench 의 algbw, GB/s
--   n     = rank 의 수
-- check 는 sweep 세 개의 모든 행에서 이것을 돌려 bench 자신의 busbw column 과
-- 비교한다.

return function(coll, algbw, n)
  if coll == "all_reduce" then
    return algbw          -- TODO: all_reduce 의 factor
  elseif coll == "all_gather" then
    return algbw          -- TODO: all_gather 의 factor
  elseif coll == "broadcast" then
    return algbw          -- TODO: broadcast 의 factor (바꾸기 전에 생각해 본다)
  end
  error("busbw.lua: unknown collective " .. tostring(coll))
end
