-- wrong: compares the path types as strings ("NODE" < "PIX"), so it keeps
--        the alphabetical first, not the closest
-- verdict: not alphabetical order
return function(topo, g)
  local ngpus = #topo.gpus
  local row = topo.matrix.rows[g + 1]       -- GPU g's row of the matrix
  local best_nic, best_path = nil, nil
  for n = 0, #topo.nics - 1 do
    local path = row[ngpus + n + 1]         -- the cell of column NIC n
    if best_path == nil or path < best_path then
      best_nic, best_path = n, path
    end
  end
  return best_nic, best_path
end
