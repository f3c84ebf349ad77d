-- labs/01-topology/lang/ko.lua - the Korean of this lab's texts: the English
-- text exactly as lab.lua writes it -> its Korean, placeholders in the same
-- order (docs/lab-authoring.md, the language contract of issue 29).
return {
  -- lab
  ["Topology"] = "Topology",
  ["nvidia-smi topo -m for your machine: links, NUMA, CPUs, PCIe, NICs, peer access, NCCL XML"] =
    "자기 머신의 nvidia-smi topo -m: link, NUMA, CPU, PCIe, NIC, peer access, NCCL XML",
  ["cuda (1..N GPUs; the questions adapt to one GPU) and sim (any preset or NCCL XML)"] =
    "cuda (GPU 1..N 개; GPU 가 하나면 질문이 그에 맞춰진다) 와 sim (어느 preset 이든, NCCL XML 이든)",

  -- step 1: the link matrix
  ["The link matrix"] = "link matrix",
  ["The cell in row GPU0, column GPU1 of the matrix (topology pane 1 or the results table)."] =
    "matrix 의 row GPU0, column GPU1 칸 (topology pane 1 또는 results 표).",
  ["NV# means # bonded NVLinks. The log pane (5) prints this machine's rate per NVLink; the peak is that rate times the links."] =
    "NV# 는 NVLink # 개를 묶었다는 뜻이다. log pane (5) 에 이 머신의 NVLink 하나당 rate 가 나온다; peak 는 그 rate 곱하기 link 수다.",
  ["A PCIe path (PIX, PXB, PHB, NODE, SYS) runs at most at the PCIe link rate the log pane prints."] =
    "PCIe path (PIX, PXB, PHB, NODE, SYS) 는 log pane 에 나오는 PCIe link rate 를 넘지 못한다.",
  ["With one GPU: link01 = none, nvdomain = 1, and peak01 is GPU0's PCIe link (the 'pcie' column of step 2)."] =
    "GPU 가 하나면: link01 = none, nvdomain = 1, peak01 은 GPU0 의 PCIe link (step 2 의 'pcie' column).",
  ["Which link joins GPU0 and GPU1 (NV18, PIX, NODE, SYS, ...; none with one GPU)?"] =
    "GPU0 과 GPU1 을 잇는 link 는 무엇인가 (NV18, PIX, NODE, SYS, ...; GPU 가 하나면 none)?",
  ["How many GPUs share GPU0's NVLink domain, GPU0 included (1 without NVLink)?"] =
    "GPU0 의 NVLink domain 을 함께 쓰는 GPU 는 GPU0 을 포함해 몇 개인가 (NVLink 가 없으면 1)?",
  ["The nominal one-direction peak of that link in GB/s (one GPU: its PCIe link)?"] =
    "그 link 의 한 방향 공칭 peak 는 몇 GB/s 인가 (GPU 가 하나면 그 PCIe link)?",
  ["topo -m: %s"] = "topo -m: %s",
  ["this machine"] = "이 머신",
  ["link rates of this machine: NVLink %s; GPU0's PCIe link %s"] =
    "이 머신의 link rate: NVLink %s; GPU0 의 PCIe link %s",
  ["%s GB/s per link per direction"] = "link 하나, 한 방향당 %s GB/s",
  ["none (%s)"] = "없음 (%s)",
  ["%s GB/s per direction"] = "한 방향당 %s GB/s",
  ["unknown"] = "알 수 없음",
  ["link GPU0-GPU1"] = "GPU0-GPU1 link",
  ["topology pane (1): row GPU0, column GPU1"] = "topology pane (1): row GPU0, column GPU1",
  ["GPUs in GPU0's NVLink domain"] = "GPU0 의 NVLink domain 에 있는 GPU 수",
  ["topology pane (1): the NV# cells of row GPU0, plus GPU0"] =
    "topology pane (1): row GPU0 의 NV# 칸들, 그리고 GPU0 자신",
  ["peak of the GPU0-GPU1 link"] = "GPU0-GPU1 link 의 peak",
  ["peak of GPU0's PCIe link"] = "GPU0 의 PCIe link 의 peak",
  ["the matrix cell's link and the per-link rates in the log pane (5)"] =
    "matrix 칸의 link 와 log pane (5) 의 link 당 rate",

  -- step 2: affinity and the exercise
  ["NUMA, CPU affinity, PCIe and NICs"] = "NUMA, CPU affinity, PCIe, NIC",
  ["The NIC columns come after the GPU columns in topo.matrix.rows: NIC n of GPU g is rows[g + 1][#topo.gpus + n + 1]."] =
    "topo.matrix.rows 에서 NIC column 은 GPU column 다음에 온다: GPU g 의 NIC n 은 rows[g + 1][#topo.gpus + n + 1].",
  ["Closest first: PIX, PXB, PHB, NODE, SYS (then NET). Keep the NIC with the closest path."] =
    "가까운 순서: PIX, PXB, PHB, NODE, SYS (그다음 NET). path 가 가장 가까운 NIC 을 남긴다.",
  ["numa0 and cpus0 are in the GPU table: a range a-b holds b - a + 1 CPUs, so '0-3,8-11' is 4 + 4."] =
    "numa0 과 cpus0 은 GPU 표에 있다: 범위 a-b 에는 CPU 가 b - a + 1 개, 그러므로 '0-3,8-11' 은 4 + 4.",
  ["Which NUMA node is GPU0 attached to?"] = "GPU0 은 어느 NUMA node 에 붙어 있는가?",
  ["How many logical CPUs are in GPU0's CPU affinity list?"] =
    "GPU0 의 CPU affinity 목록에 logical CPU 가 몇 개인가?",
  ["How many of this host's NICs sit on a GPU's own PCIe switch (PIX to a GPU)?"] =
    "이 host 의 NIC 중 몇 개가 어떤 GPU 의 자기 PCIe switch 위에 있는가 (어떤 GPU 와 PIX)?",
  ["GPUs"] = "GPUs",
  ["gpu"] = "gpu",
  ["PCI bus id"] = "PCI bus id",
  ["name"] = "이름",
  ["NUMA"] = "NUMA",
  ["CPU affinity"] = "CPU affinity",
  ["PCIe GB/s"] = "PCIe GB/s",
  ["NVLinks"] = "NVLinks",
  ["NICs"] = "NICs",
  ["nic"] = "nic",
  ["speed"] = "속도",
  ["GPUDirect RDMA"] = "GPUDirect RDMA",
  ["GPU0's NUMA node"] = "GPU0 의 NUMA node",
  ["results pane (3), table GPUs, column NUMA"] = "results pane (3), GPUs 표, NUMA column",
  ["CPUs local to GPU0"] = "GPU0 에 local 한 CPU 수",
  ["results pane (3), table GPUs, column CPU affinity"] = "results pane (3), GPUs 표, CPU affinity column",
  ["NICs of this host on a GPU's own PCIe switch (PIX)"] = "어떤 GPU 의 자기 PCIe switch 위에 있는 (PIX) 이 host 의 NIC 수",
  ["topology pane (1): the NIC columns, a PIX cell in a GPU's row"] =
    "topology pane (1): NIC column 들, GPU row 의 PIX 칸",
  ["nearest_nic.lua must return a function(topo, gpu): %s"] =
    "nearest_nic.lua 는 function(topo, gpu) 를 돌려줘야 한다: %s",
  ["no function"] = "function 없음",
  ["your nearest_nic.lua"] = "내 nearest_nic.lua",
  ["error"] = "error",
  ["no such NIC"] = "없는 NIC",
  ["a closer NIC exists"] = "더 가까운 NIC 이 있다",
  ["not its path"] = "그 NIC 의 path 가 아니다",
  ["closest"] = "가장 가깝다",
  ["your NIC"] = "내 NIC",
  ["your path"] = "내 path",
  ["its real path"] = "실제 path",
  ["verdict"] = "판정",
  ["topology pane (1): your GPU's row, NIC columns"] = "topology pane (1): 그 GPU 의 row, NIC column 들",
  [" on the SIMULATED dgx-h100"] = ", SIMULATED dgx-h100 에서",
  [" on the SIMULATED dgx-h100 with its NICs numbered the other way round (NIC0 is its NIC7)"] =
    ", NIC 번호를 거꾸로 매긴 SIMULATED dgx-h100 에서 — NIC0 이 원래의 NIC7",
  ["mgpulab topo --machine dgx-h100, NIC columns read right to left"] =
    "mgpulab topo --machine dgx-h100, NIC column 을 오른쪽에서 왼쪽으로 읽는다",
  ["nearest_nic.lua picks the closest NIC of every GPU, here and on a DGX whose NICs are numbered either way"] =
    "nearest_nic.lua 가 모든 GPU 에서 가장 가까운 NIC 을 고른다 — 여기서도, NIC 번호를 어느 쪽으로 매긴 DGX 에서도",
  ["the closest NIC for every GPU"] = "모든 GPU 에 가장 가까운 NIC",
  ["results pane (3), table nearest_nic.lua"] = "results pane (3), nearest_nic.lua 표",
  ["nearest_nic.lua: %s"] = "nearest_nic.lua: %s",
  ["; and "] = "; 그리고 ",
  ["for every GPU, the 0-based index of a NIC with the closest path in its row, and that path"] =
    "모든 GPU 에 대해, 그 row 에서 path 가 가장 가까운 NIC 의 0-based index 와 그 path",
  ["%s; results pane (3), table nearest_nic.lua"] = "%s; results pane (3), nearest_nic.lua 표",
  -- judge_nearest: "it" is the learner's nearest_nic; `where` is " for GPU%d%s"
  ["it raised an error for GPU%d%s: %s"] = "error 가 났다 (GPU%d%s): %s",
  [" for GPU%d%s"] = " (GPU%d%s)",
  ["it returned NIC %s%s, but there is no NIC: return nil, nil"] =
    "돌려준 NIC: %s%s. 그런데 NIC 이 하나도 없다: nil, nil 을 돌려준다",
  ["it returned %s as the NIC%s: return the NIC's 0-based index (a whole number) and its path"] =
    "NIC 으로 돌려준 값: %s%s. NIC 의 0-based index (정수) 와 그 path 를 돌려준다",
  ["it returned NIC %d%s, but the NICs are NIC0 .. NIC%d (0-based)"] =
    "돌려준 NIC: %d%s. 그런데 NIC 은 NIC0 .. NIC%d 이다 (0-based)",
  ["it returned NIC %d with path %s%s, but %s is the path of NIC %d: the index and the column it read are one "
     .. "apart - NIC n (0-based) is row[#topo.gpus + n + 1]"] =
    "돌려준 것: NIC %d, path %s%s. 그런데 그 path (%s) 는 NIC %d 의 것이다: index 와 읽은 column 이 하나 어긋난다 "
      .. "— NIC n (0-based) 은 row[#topo.gpus + n + 1]",
  ["it returned NIC %d with path %s%s, but that is not the path of NIC %d: its cell in row GPU%d says %s - "
     .. "return the path of the NIC you chose"] =
    "돌려준 것: NIC %d, path %s%s. 그런데 그것은 NIC %d 의 path 가 아니다: row GPU%d 의 그 칸은 %s "
      .. "— 고른 NIC 의 path 를 돌려준다",
  ["it chose NIC %d%s, whose path is %s, but GPU%d has a closer NIC%s"] =
    "고른 NIC: %d%s, path 는 %s. 그런데 GPU%d 에는 더 가까운 NIC 이 있다%s",
  ["it takes NIC g for GPU g: the index says nothing about the PCIe tree - choose the NIC by its path, not by its index"] =
    "GPU g 에 NIC g 를 고른다: index 는 PCIe tree 에 대해 아무것도 말해주지 않는다 — NIC 은 index 가 아니라 "
      .. "path 로 고른다",
  ["it keeps NIC0 for every GPU: compare every NIC's path and keep the closest"] =
    "모든 GPU 에 NIC0 을 남긴다: 모든 NIC 의 path 를 비교해 가장 가까운 것을 남긴다",
  ["it keeps the farthest NIC of every GPU, which here is also the alphabetical first path of its row: closest first "
     .. "is PIX, PXB, PHB, NODE, SYS, then NET - not alphabetical order, and not the comparison the wrong way round"] =
    "모든 GPU 에서 가장 먼 NIC 을 남기는데, 여기서는 그것이 row 의 알파벳순 첫 path 이기도 하다: 가까운 순서는 "
      .. "PIX, PXB, PHB, NODE, SYS, 그다음 NET — 알파벳순이 아니고, 비교 방향이 거꾸로여도 안 된다",
  ["it keeps the farthest NIC of every GPU: is the comparison the wrong way round?"] =
    "모든 GPU 에서 가장 먼 NIC 을 남긴다: 비교 방향이 거꾸로 아닌가?",
  ["it keeps the alphabetical first path of each row: closest first is PIX, PXB, PHB, NODE, SYS, not alphabetical order"] =
    "row 마다 알파벳순 첫 path 를 남긴다: 가까운 순서는 PIX, PXB, PHB, NODE, SYS 이고, 알파벳순이 아니다",

  -- step 3: peer access
  ["Peer access"] = "Peer access",
  ["The peer-access matrix is below the link matrix in the topology pane; count the 'no' cells off the diagonal."] =
    "peer-access matrix 는 topology pane 에서 link matrix 아래에 있다; 대각선 밖의 'no' 칸을 센다.",
  ["Ordered pairs: GPU0 -> GPU1 and GPU1 -> GPU0 count twice. With one GPU the answer is 0."] =
    "순서 있는 쌍: GPU0 -> GPU1 과 GPU1 -> GPU0 은 두 번 센다. GPU 가 하나면 답은 0.",
  ["How many ordered GPU pairs of this host (i -> j, i != j) have NO peer access?"] =
    "이 host 의 순서 있는 GPU 쌍 (i -> j, i != j) 중 몇 개에 peer access 가 없는가?",
  ["peer access (cudaDeviceCanAccessPeer)"] = "peer access (cudaDeviceCanAccessPeer)",
  ["ordered GPU pairs without peer access"] = "peer access 가 없는 순서 있는 GPU 쌍",
  ["results pane (3), table 'peer access'"] = "results pane (3), 'peer access' 표",

  -- step 4: NCCL XML
  ["Export the topology as NCCL XML"] = "topology 를 NCCL XML 로 내보내기",
  ["NCCL topology XML: %d bytes, %d <gpu> elements"] = "NCCL topology XML: %d bytes, <gpu> element %d 개",
  ["the XML starts with NCCL's <system version=\"1\">"] = "XML 이 NCCL 의 <system version=\"1\"> 로 시작한다",
  ["the exported text (mgpulab topo --xml)"] = "내보낸 text (mgpulab topo --xml)",
  ["<gpu> elements in the XML"] = "XML 의 <gpu> element 수",
  ["the exported text vs the topology pane (1)"] = "내보낸 text 와 topology pane (1) 비교",
  ["GPU%d's PCI bus id %s in the XML"] = "XML 안의 GPU%d 의 PCI bus id %s",
  ["the exported text"] = "내보낸 text",
}
