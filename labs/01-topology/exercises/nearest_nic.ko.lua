-- nearest_nic.lua - GPU 는 어느 NIC 을 써야 하는가? (lab 1, step "affinity")
--
-- NCCL 은 GPU 마다 PCIe tree 에서 가장 가까운 network card 를 준다. 그래야
-- GPUDirect RDMA 가 CPU 를 건너지 않고 데이터를 HBM -> NIC 로 옮길 수 있다.
-- nvidia-smi topo -m 은 각 GPU row 의 NIC column 에 거리를 보여준다,
-- 가까운 순서로:
--   PIX  PCIe switch 하나          PXB  switch 여러 개
--   PHB  host bridge 경유          NODE 한 NUMA node 의 host bridge 사이
--   SYS  CPU socket 사이           NET  다른 host
--
-- NCCL 이 필요로 하는 함수를 쓴다: decode 된 topology (`mgpulab topo --json`
-- 이 출력하는 것, results pane 참고) 와 GPU index g (0-based) 를 받아
-- 다음을 돌려준다
--   nic  - 가장 가까운 NIC 의 0-based index (가장 가까운 것 중 아무거나), 그리고
--   path - 그 path 종류 ("PIX", "NODE", ...).
-- host 에 NIC 이 없으면 nil, nil 을 돌려준다.
--
-- matrix: topo.matrix.labels = {"GPU0", ..., "NIC0", ...} 이고
-- topo.matrix.rows[i][j] 는 label i 와 label j 사이의 path 다 (1-based
-- Lua index!). topo.gpus 와 topo.nics 가 device 목록이다.

local ORDER = { PIX = 1, PXB = 2, PHB = 3, NODE = 4, SYS = 5, NET = 6 }

return function(topo, g)
  local ngpus = #topo.gpus
  local row = topo.matrix.rows[g + 1]       -- matrix 에서 GPU g 의 row
  local best_nic, best_path = nil, nil
  for n = 0, #topo.nics - 1 do
    local path = row[ngpus + n + 1]         -- column NIC n 의 칸
    -- TODO: path 가 가장 가까운 (ORDER 값이 가장 작은) NIC 을 남긴다
  end
  return best_nic, best_path
end
