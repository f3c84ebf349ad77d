-- wrong: forgets that Lua's rows are 1-based and reads NIC n's cell at
--        row[ngpus + n]: every path it sees is its left neighbour's, so the
--        path it returns is not the path of the NIC it returns
-- verdict: the index and the column it read are one apart
local ORDER = { PIX = 1, PXB = 2, PHB = 3, NODE = 4, SYS = 5, NET = 6 }

return function(topo, g)
  local ngpus = #topo.gpus
  local row = topo.matrix.rows[g + 1]       -- GPU g's row of the matrix
  local best_nic, best_path = nil, nil
  for n = 0, #topo.nics - 1 do
    local path = row[ngpus + n]             -- the cell of column NIC n
    local rank = ORDER[path] or 99
    if best_path == nil or rank < (ORDER[best_path] or 99) then
      best_nic, best_path = n, path
    end
  end
  return best_nic, best_path
end
