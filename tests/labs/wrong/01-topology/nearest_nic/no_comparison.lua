-- wrong: keeps the first NIC it sees and never compares it with the others:
--        NIC0 for every GPU
-- verdict: it keeps NIC0 for every GPU
local ORDER = { PIX = 1, PXB = 2, PHB = 3, NODE = 4, SYS = 5, NET = 6 }

return function(topo, g)
  local ngpus = #topo.gpus
  local row = topo.matrix.rows[g + 1]       -- GPU g's row of the matrix
  local best_nic, best_path = nil, nil
  for n = 0, #topo.nics - 1 do
    local path = row[ngpus + n + 1]         -- the cell of column NIC n
    if best_path == nil and ORDER[path] then
      best_nic, best_path = n, path
    end
  end
  return best_nic, best_path
end
