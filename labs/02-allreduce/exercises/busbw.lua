-- busbw.lua - bus bandwidth from algorithm bandwidth (lab 2, step "busbw").
--
-- nccl-tests prints two bandwidths per row:
--   algbw = size / time             what your program sees
--   busbw = algbw * factor          what each link carries, comparable with
--                                   the link's peak whatever the rank count
-- The factor depends on the collective and on n, the number of ranks.
--
-- Return a function that computes busbw for
--   coll  = "all_reduce", "all_gather" or "broadcast"
--   algbw = the bench's algbw in GB/s
--   n     = the number of ranks
-- The check runs it on every row of three sweeps and compares it with the
-- bench's own busbw column.

return function(coll, algbw, n)
  if coll == "all_reduce" then
    return algbw          -- TODO: the all_reduce factor
  elseif coll == "all_gather" then
    return algbw          -- TODO: the all_gather factor
  elseif coll == "broadcast" then
    return algbw          -- TODO: the broadcast factor (think before you change it)
  end
  error("busbw.lua: unknown collective " .. tostring(coll))
end
