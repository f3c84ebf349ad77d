-- wrong: takes NIC g for GPU g, because on a DGX the NICs pair up with the
--        GPUs (NIC0 sits on GPU0's switch): a host whose NICs enumerate in
--        another order gets the far NIC
-- verdict: choose the NIC by its path, not by its index
return function(topo, g)
  local ngpus = #topo.gpus
  local row = topo.matrix.rows[g + 1]       -- GPU g's row of the matrix
  if #topo.nics == 0 then return nil, nil end
  local n = g % #topo.nics                  -- GPU g's own NIC
  return n, row[ngpus + n + 1]
end
