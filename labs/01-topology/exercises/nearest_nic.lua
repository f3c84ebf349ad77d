-- nearest_nic.lua - which NIC should a GPU use? (lab 1, step "affinity")
--
-- NCCL gives every GPU the network card closest to it on the PCIe tree, so
-- that GPUDirect RDMA can move data HBM -> NIC without crossing the CPU.
-- nvidia-smi topo -m shows the distances in the NIC columns of each GPU's
-- row, closest first:
--   PIX  one PCIe switch          PXB  several switches
--   PHB  through a host bridge    NODE across host bridges of one NUMA node
--   SYS  across CPU sockets       NET  another host
--
-- Write the function NCCL needs: given the decoded topology (what
-- `mgpulab topo --json` prints, see the results pane) and a GPU index g
-- (0-based), return
--   nic  - the 0-based index of the closest NIC (any one of the closest), and
--   path - its path type ("PIX", "NODE", ...).
-- Return nil, nil when the host has no NIC.
--
-- The matrix: topo.matrix.labels = {"GPU0", ..., "NIC0", ...} and
-- topo.matrix.rows[i][j] is the path between label i and label j (1-based
-- Lua indices!). topo.gpus and topo.nics list the devices.

local ORDER = { PIX = 1, PXB = 2, PHB = 3, NODE = 4, SYS = 5, NET = 6 }

return function(topo, g)
  local ngpus = #topo.gpus
  local row = topo.matrix.rows[g + 1]       -- GPU g's row of the matrix
  local best_nic, best_path = nil, nil
  for n = 0, #topo.nics - 1 do
    local path = row[ngpus + n + 1]         -- the cell of column NIC n
    -- TODO: keep the NIC whose path is the closest (smallest ORDER value)
  end
  return best_nic, best_path
end
