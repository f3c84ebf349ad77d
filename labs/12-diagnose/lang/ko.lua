-- labs/12-diagnose/lang/ko.lua - the Korean of this lab's texts: the English
-- text exactly as lab.lua writes it -> its Korean, placeholders in the same
-- order (docs/lab-authoring.md, the language contract of issue 29).
return {
  -- lab
  ["Diagnose the cluster"] = "클러스터 진단",
  ["One hidden fault: find it with topo, copy, bench, the NCCL log and per-rank times; read real logs"] =
    "숨은 fault 하나: topo, copy, bench, NCCL log, rank 별 시간으로 찾는다; 실제 log 를 읽는다",
  ["sim (a hidden fault on every preset); the log reading on any machine"] =
    "sim (모든 preset 에 숨은 fault 하나); log 읽기는 어느 기계에서나",

  -- step 1: static
  ["Find the hidden fault"] = "숨은 fault 찾기",
  ["Read every table against its reference column first: which numbers differ at all?"] =
    "먼저 모든 표를 reference 열과 나란히 읽는다: 어떤 숫자가 다르기라도 한가?",
  ["Then ask what the differing numbers share: one GPU, one NIC, one rank - or none (the whole machine)."] =
    "그다음 다른 숫자들이 무엇을 공유하는지 묻는다: GPU 하나, NIC 하나, rank 하나 - 아니면 없음 (기계 전체).",
  ["A topology row that differs names a part; a measurement that differs proves it costs something. " ..
   "NCCL's log tells which transport it chose."] =
    "다른 topology 행은 부품을 가리키고, 다른 측정값은 그것이 비용을 치르게 한다는 것을 증명한다. " ..
    "NCCL log 는 어떤 transport 를 골랐는지 알려 준다.",
  ["Which component is at fault (nvlink, p2p, gdr, straggler, pcie, nic, socket)?"] =
    "어느 component 가 고장인가 (nvlink, p2p, gdr, straggler, pcie, nic, socket)?",
  ["Which GPU, NIC or rank (its index as the tables number it; none for the whole machine)?"] =
    "어느 GPU, NIC 또는 rank 인가 (표가 매긴 index; 기계 전체면 none)?",
  ["Which tool shows your evidence (topo, copy, bench, nccl, ranks)?"] =
    "증거를 보여 주는 도구는 무엇인가 (topo, copy, bench, nccl, ranks)?",
  ["The number (or word) in that tool's table that proves it, as the table shows it"] =
    "그 도구의 표에서 그것을 증명하는 숫자 (또는 단어), 표에 나온 그대로",

  -- step 2: static
  ["Read the logs of five incidents"] = "사고 다섯 건의 log 읽기",
  ["Read each log from its first line: what did NCCL choose, what did it wait for, who reported first?"] =
    "각 log 를 첫 줄부터 읽는다: NCCL 은 무엇을 골랐고, 무엇을 기다렸고, 누가 먼저 보고했는가?",
  ["A watchdog timeout says where a rank waited, not why: the flight recorder or the other ranks' logs do."] =
    "watchdog timeout 은 rank 가 어디서 기다렸는지 말할 뿐 왜인지는 말하지 않는다: flight recorder 나 " ..
    "다른 rank 의 log 가 말한다.",
  ["Incident 1 (a1-nccl-init.log): the cause, in a word (socket, desync, link, size, straggler)?"] =
    "사고 1 (a1-nccl-init.log): 원인을 한 단어로 (socket, desync, link, size, straggler)?",
  ["Incident 2 (a2-watchdog.log): the cause?"] = "사고 2 (a2-watchdog.log): 원인은?",
  ["Incident 3 (a3-ib-error.log): the cause?"] = "사고 3 (a3-ib-error.log): 원인은?",
  ["Incident 4 (a4-truncated.log): the cause?"] = "사고 4 (a4-truncated.log): 원인은?",
  ["Incident 5 (a5-flight.txt): the cause?"] = "사고 5 (a5-flight.txt): 원인은?",

  -- run-time: the hidden fault
  ["the run's --fault '%s' is not one this lab diagnoses"] = "이 run 의 --fault '%s' 는 이 lab 이 진단하는 fault 가 아니다",
  ["no fault of this lab can show on this machine"] = "이 lab 의 fault 중 이 기계에서 드러날 수 있는 것이 없다",

  -- run-time: the evidence cells
  ["GPU%d PCIe generation"] = "GPU%d PCIe 세대",
  ["GPU%d PCIe width"] = "GPU%d PCIe 폭",
  ["GPU%d NVLinks"] = "GPU%d NVLink 수",
  ["GPU%d PCIe link"] = "GPU%d PCIe link",
  ["GPU%d GPUDirect RDMA"] = "GPU%d GPUDirect RDMA",
  ["NIC%d state"] = "NIC%d 상태",
  ["NIC%d rate"] = "NIC%d 속도",
  ["NIC%d GPUDirect RDMA"] = "NIC%d GPUDirect RDMA",
  ["GPU pairs of a node without peer access"] = "peer access 가 없는 한 노드 안의 GPU 쌍",
  ["host -> GPU%d"] = "host -> GPU%d",
  ["GPU%d <- GPU%d peer read"] = "GPU%d <- GPU%d peer read",
  ["network"] = "network",
  ["P2P links"] = "P2P link 수",
  ["SHM links"] = "SHM link 수",
  ["rank %d network link"] = "rank %d 의 network link",
  ["rank %d local copy"] = "rank %d 의 local copy",
  ["rank %d <-> rank %d network"] = "rank %d <-> rank %d network",

  -- run-time: progress
  ["topology"] = "topology",
  ["host and peer copies"] = "host 및 peer copy",
  ["all_reduce with NCCL_DEBUG=INFO"] = "NCCL_DEBUG=INFO 로 all_reduce",
  ["all_reduce 16 MiB busbw"] = "all_reduce 16 MiB busbw",
  ["per-rank times"] = "rank 별 시간",
  ["done"] = "끝",

  -- run-time: the tables
  ["topo: GPUs (the PCIe link as it runs; NVLinks up; the NIC NCCL uses for it)"] =
    "topo: GPU (지금 동작하는 PCIe link; 살아 있는 NVLink; NCCL 이 그 GPU 에 쓰는 NIC)",
  ["GPU"] = "GPU",
  ["host"] = "host",
  ["PCIe"] = "PCIe",
  ["NVLinks"] = "NVLink",
  ["GDR"] = "GDR",
  ["nearest NIC"] = "가장 가까운 NIC",
  ["topo: NICs (as ibstat reads each port)"] = "topo: NIC (ibstat 이 각 port 를 읽은 대로)",
  ["NIC"] = "NIC",
  ["name"] = "이름",
  ["state"] = "상태",
  ["rate Gb/s"] = "속도 Gb/s",
  ["supports Gb/s"] = "지원 Gb/s",
  ["topo: peer access (this machine, the healthy reference)"] = "topo: peer access (이 기계, 건강한 reference)",
  ["measure"] = "측정",
  ["this machine"] = "이 기계",
  ["reference"] = "reference",
  ["copy: host -> GPU, GB/s (this machine, the healthy reference)"] =
    "copy: host -> GPU, GB/s (이 기계, 건강한 reference)",
  ["read by \\ from"] = "읽는 쪽 \\ 읽히는 쪽",
  ["copy: peer reads GPU(row) <- GPU(column), GB/s"] = "copy: peer read GPU(행) <- GPU(열), GB/s",
  ["bench: all_reduce 16 MiB over %d ranks"] = "bench: rank %d 개에 걸친 all_reduce 16 MiB",
  ["busbw GB/s"] = "busbw GB/s",
  ["nccl: what NCCL's INFO log says (this run, the reference run)"] =
    "nccl: NCCL 의 INFO log 가 말하는 것 (이 run, reference run)",
  ["line"] = "줄",
  ["ranks: each rank's local copy, and its exchanges with the next node (A: the same local index, " ..
   "B: the next one), GB/s"] =
    "ranks: 각 rank 의 local copy 와 다음 노드와의 교환 (A: 같은 local index, B: 그다음 index), GB/s",
  ["rank"] = "rank",
  ["copy"] = "copy",
  ["copy ref"] = "copy ref",
  ["network A"] = "network A",
  ["A ref"] = "A ref",
  ["network B"] = "network B",
  ["B ref"] = "B ref",

  -- run-time: why a component is not it
  ["topo shows every GPU with the NVLinks it is wired with"] = "topo 는 모든 GPU 가 배선된 NVLink 를 다 가졌다고 보여 준다",
  ["peer access is lost only between GPUs whose path changed: is access the cause, or the " ..
   "path under it?"] =
    "peer access 는 경로가 바뀐 GPU 사이에서만 사라졌다: access 가 원인인가, 아니면 그 아래의 경로인가?",
  ["topo shows peer access on wherever the wiring allows it"] = "topo 는 배선이 허락하는 곳마다 peer access 가 켜져 있다고 보여 준다",
  ["topo shows GPUDirect RDMA on for every NIC"] = "topo 는 모든 NIC 에서 GPUDirect RDMA 가 켜져 있다고 보여 준다",
  ["every rank's local copy runs at the reference's speed"] = "모든 rank 의 local copy 가 reference 의 속도로 돈다",
  ["every GPU's PCIe link reads as wired and its host copy matches the reference"] =
    "모든 GPU 의 PCIe link 가 배선대로 읽히고 host copy 도 reference 와 같다",
  ["every NIC is ACTIVE at its rate, and on one node NCCL sends nothing through them"] =
    "모든 NIC 가 제 속도로 ACTIVE 이고, 노드 하나에서는 NCCL 이 NIC 로 아무것도 보내지 않는다",
  ["every NIC is ACTIVE at its rate: where a rank's exchanges are slow, look at what else " ..
   "its traffic crosses"] =
    "모든 NIC 가 제 속도로 ACTIVE 이다: 어떤 rank 의 교환이 느리다면 그 traffic 이 그 밖에 무엇을 지나는지 본다",
  ["every NIC is ACTIVE at its rate and no NIC pair is below the reference"] =
    "모든 NIC 가 제 속도로 ACTIVE 이고 reference 보다 느린 NIC 쌍이 없다",
  ["this machine has one node: NCCL uses no network transport here"] =
    "이 기계는 노드가 하나다: 여기서 NCCL 은 network transport 를 쓰지 않는다",
  ["NCCL's log says which network it uses, and it is the reference's"] =
    "NCCL log 가 어떤 network 를 쓰는지 말하고, 그것은 reference 의 것과 같다",
  ["it does not explain the numbers that differ from the reference"] = "그것은 reference 와 다른 숫자들을 설명하지 못한다",

  -- run-time: the verdicts
  ["the step's tables: this machine beside the healthy reference"] = "이 step 의 표: 건강한 reference 옆의 이 기계",
  ["the component at fault"] = "고장 난 component",
  ["the component: '%s' is not one of nvlink, p2p, gdr, straggler, pcie, nic, socket"] =
    "component: '%s' 는 nvlink, p2p, gdr, straggler, pcie, nic, socket 중 하나가 아니다",
  ["one of the names the question lists"] = "질문이 나열한 이름 중 하나",
  ["the component: %s is not it - %s. Which part do the numbers that differ from the reference share?"] =
    "component: %s 가 아니다 - %s. reference 와 다른 숫자들이 공유하는 부품은 무엇인가?",
  ["the component the evidence points at"] = "증거가 가리키는 component",
  ["the component: %s is right"] = "component: %s 가 맞다",
  ["which GPU, NIC or rank"] = "어느 GPU, NIC 또는 rank",
  ["which: none - the fault is the whole machine's, right"] = "which: none - fault 는 기계 전체의 것이다, 맞다",
  ["which: %s - but the numbers that differ from the reference are not confined to one GPU, NIC or rank; " ..
   "look whether they concern one at all"] =
    "which: %s - 그러나 reference 와 다른 숫자들은 GPU, NIC, rank 하나에 갇혀 있지 않다; " ..
    "그것들이 애초에 하나에 관한 것인지 본다",
  ["the index the evidence points at, or none"] = "증거가 가리키는 index, 또는 none",
  ["which: '%s' - the numbers that differ from the reference concern one device or rank: give its index " ..
   "as the tables number it"] =
    "which: '%s' - reference 와 다른 숫자들은 장치 하나나 rank 하나에 관한 것이다: 표가 매긴 index 를 준다",
  ["an index"] = "index 하나",
  ["which: %d is not the one - the numbers that differ from the reference share one index, and it is not %d"] =
    "which: %d 가 아니다 - reference 와 다른 숫자들은 index 하나를 공유하고, 그것은 %d 가 아니다",
  ["the index every differing number shares"] = "다른 숫자 모두가 공유하는 index",
  ["which: %s %d is right"] = "which: %s %d 가 맞다",
  ["the tool your evidence comes from"] = "증거가 나온 도구",
  ["the number (or word) that proves it"] = "그것을 증명하는 숫자 (또는 단어)",
  ["the evidence: '%s' is not one of the lab's tools (topo, copy, bench, nccl, ranks)"] =
    "증거: '%s' 는 이 lab 의 도구 (topo, copy, bench, nccl, ranks) 중 하나가 아니다",
  ["a tool name"] = "도구 이름",
  ["the evidence: %s in %s (%s; the reference reads %s) - right"] =
    "증거: %s 의 %s (%s; reference 는 %s) - 맞다",
  ["the evidence: %s in %s (%s) differs from the reference, but it does not point at the part at fault " ..
   "by itself: quote a number that concerns it"] =
    "증거: %s 의 %s (%s) 는 reference 와 다르지만, 그것만으로는 고장 난 부품을 가리키지 않는다: " ..
    "그 부품에 관한 숫자를 든다",
  ["a number about the part at fault"] = "고장 난 부품에 관한 숫자",
  ["the evidence: %s in %s (%s) is what the healthy reference reads too: it shows nothing wrong"] =
    "증거: %s 의 %s (%s) 는 건강한 reference 도 읽는 값이다: 잘못된 것을 보여 주지 않는다",
  ["a number that differs from the reference"] = "reference 와 다른 숫자",
  ["the evidence: no %s number of this run reads %s: quote it as the table shows it"] =
    "증거: 이 run 의 %s 숫자 중 %s 인 것이 없다: 표에 나온 그대로 든다",
  ["a value from the %s table"] = "%s 표의 값",
  ["the hidden fault is the sim's: run this step with --backend sim (any preset)"] =
    "숨은 fault 는 sim 의 것이다: 이 step 을 --backend sim 으로 돌린다 (어느 preset 이든)",
  ["a real machine"] = "실제 기계",
  ["the sim"] = "sim",
  ["lab 12 text"] = "lab 12 본문",
  ["a fault this lab knows"] = "이 lab 이 아는 fault",
  ["mgpulab --help (--fault)"] = "mgpulab --help (--fault)",

  -- run-time: step 2
  ["===== %s ====="] = "===== %s =====",
  ["%s (the log pane)"] = "%s (log 창)",
  ["incident %s"] = "사고 %s",
  ["incident %s: '%s' is not one of socket, desync, link, size, straggler"] =
    "사고 %s: '%s' 는 socket, desync, link, size, straggler 중 하나가 아니다",
  ["one of the five causes"] = "다섯 원인 중 하나",
  ["incident %s: %s does not fit what the log shows - read it again from the first line that is not routine"] =
    "사고 %s: %s 는 log 가 보여 주는 것과 맞지 않는다 - 일상적이지 않은 첫 줄부터 다시 읽는다",
  ["the cause the log shows"] = "log 가 보여 주는 원인",
  ["incident %s: %s is right"] = "사고 %s: %s 가 맞다",
  ["the evidence: %s is in the %s table, not in %s's: the tool is the table the number comes from"] =
    "증거: %s - %s 표에 있고, %s 의 표에는 없다: tool 은 그 숫자가 나온 표다",
}
