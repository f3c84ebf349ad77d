-- wrong: finds the closest NIC but returns its 1-based Lua position (n + 1)
--        instead of its 0-based index, as NIC0 .. NICk name them
-- verdict: 0-based
local ORDER = { PIX = 1, PXB = 2, PHB = 3, NODE = 4, SYS = 5, NET = 6 }

return function(topo, g)
  local ngpus = #topo.gpus
  local row = topo.matrix.rows[g + 1]       -- GPU g's row of the matrix
  local best_nic, best_path = nil, nil
  for n = 1, #topo.nics do
    local path = row[ngpus + n]             -- the cell of NIC n (1-based)
    local rank = ORDER[path] or 99
    if best_path == nil or rank < (ORDER[best_path] or 99) then
      best_nic, best_path = n, path
    end
  end
  return best_nic, best_path
end
