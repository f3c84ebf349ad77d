-- labs/07-crossnode/lang/ko.lua - the Korean of this lab's texts: the English
-- text exactly as lab.lua writes it -> its Korean, placeholders in the same
-- order (docs/lab-authoring.md, the language contract of issue 29).
return {
  -- lab
  ["Cross-node: inside a node vs between nodes"] = "Cross-node: 노드 안과 노드 사이",
  ["all_reduce in one node, across two and one rank per node; transports from NCCL's log; GPUDirect RDMA; " ..
   "hierarchical all-reduce; SHARP; fail-stop and checkpoints"] =
    "한 노드, 두 노드, 노드당 rank 하나의 all_reduce; NCCL log 로 본 transport; GPUDirect RDMA; " ..
    "hierarchical all-reduce; SHARP; fail-stop 과 checkpoint",
  ["sim (2x-dgx-h100: two nodes; one-node presets say what they cannot show), cuda with mpirun/srun " ..
   "across hosts, or emulated nodes on one host"] =
    "sim (2x-dgx-h100: 노드 두 개; 노드 하나인 preset 은 보여줄 수 없는 것을 그렇다고 말한다), " ..
    "host 여럿에 걸친 mpirun/srun 의 cuda, 또는 host 하나 위의 emulated node",

  -- run-time: the plan of this backend
  ["SIMULATED %s: %d nodes of %d GPUs, NDR InfiniBand between them"] =
    "SIMULATED %s: 노드 %d 개, 노드마다 GPU %d 개, 노드 사이는 NDR InfiniBand",
  ["SIMULATED %s: ONE node of %d GPU"] = "SIMULATED %s: 노드 하나, GPU %d 개",
  ["SIMULATED %s: ONE node of %d GPUs"] = "SIMULATED %s: 노드 하나, GPU %d 개",
  ["this machine has one node, so nothing crosses a network here; run the lab on two: " ..
   "mgpulab run 7 --backend sim --machine 2x-dgx-h100"] =
    "이 기계는 노드가 하나라서 여기서는 아무것도 network 를 건너지 않는다; 노드 두 개에서 돌린다: " ..
    "mgpulab run 7 --backend sim --machine 2x-dgx-h100",
  ["%s across your hosts (%d GPUs per node assumed from this host)"] =
    "host 여럿에 걸친 %s (노드당 GPU %d 개, 이 host 에서 추정)",
  ["the pair run needs one rank per node: put '--map-by ppr:1:node' (mpirun) or " ..
   "'--ntasks-per-node=1' (srun) in MGPU_LAUNCHER_ARGS for it"] =
    "pair run 에는 노드당 rank 하나가 필요하다: MGPU_LAUNCHER_ARGS 에 '--map-by ppr:1:node' (mpirun) 또는 " ..
    "'--ntasks-per-node=1' (srun) 을 넣는다",
  ["one host with %d GPU: every rank an emulated node"] = "GPU %d 개인 host 하나: rank 마다 emulated node",
  ["one host with %d GPUs: every rank an emulated node"] = "GPU %d 개인 host 하나: rank 마다 emulated node",
  ["emulated nodes talk over NCCL's socket transport on the loopback interface, not InfiniBand: " ..
   "the network numbers are the socket's. With hosts, use --launcher mpirun or srun"] =
    "emulated node 는 InfiniBand 가 아니라 loopback interface 위의 NCCL socket transport 로 통신한다: " ..
    "network 수치는 socket 의 것이다. host 가 여럿이면 --launcher mpirun 또는 srun 을 쓴다",
  ["%s: %s"] = "%s: %s",
  ["not possible on this machine"] = "이 기계에서는 할 수 없다",
  ["two nodes"] = "노드 두 개",
  ["lab 7 text: 'Where you run it'"] = "lab 7 본문: '어디서 돌리나'",
  ["plan: %s%s"] = "계획: %s%s",
  ["results pane (3)"] = "results pane (3)",
  ["log pane (5)"] = "log pane (5)",

  -- step 1
  ["The same all_reduce inside a node and between nodes"] = "같은 all_reduce, 노드 안과 노드 사이",
  ["ratio: one node's all_reduce runs on NVLink; the pair's bytes leave each node through one NIC. Put " ..
   "the two in the same units - one direction of one GPU's links against one direction of one NIC."] =
    "ratio: 한 노드의 all_reduce 는 NVLink 위에서 돈다; pair 의 byte 는 NIC 하나로 각 노드를 나간다. " ..
    "둘을 같은 단위로 맞춘다 - GPU 하나의 link 들의 한 방향 대 NIC 하나의 한 방향.",
  ["nics: count the mlx5 rows of one host in the topology pane (1), or lab 1's NIC question."] =
    "nics: topology pane (1) 에서 host 하나의 mlx5 행을 세거나, lab 1 의 NIC 질문을 떠올린다.",
  ["Predict, before the table shows it: busbw of one full node divided by busbw of 2 ranks one per node (within 30 %)?"] =
    "표가 보여주기 전에 예측한다: 노드 하나 전체의 busbw 를 노드당 하나씩인 rank 2 개의 busbw 로 나누면 (30 % 안)?",
  ["How many NICs does one node have?"] = "노드 하나에 NIC 가 몇 개인가?",
  ["one node"] = "한 노드",
  ["both nodes"] = "두 노드",
  ["2 ranks, one per node"] = "rank 2 개, 노드당 하나",
  ["not here: %s"] = "여기서는 없음 (%s뿐)",
  ["predict 'ratio' first"] = "먼저 'ratio' 를 예측한다",
  ["ratio one node / pair"] = "비율: 한 노드 / pair",
  ["%sx measured, %sx predicted (the note: 18x)"] = "측정 %sx, 예측 %sx (노트: 18x)",
  ["ratio one node / both nodes"] = "비율: 한 노드 / 두 노드",
  ["all_reduce busbw: inside vs between nodes (GB/s)"] = "all_reduce busbw: 노드 안 대 노드 사이 (GB/s)",
  ["ranks"] = "rank 수",
  ["size"] = "크기",
  ["the pair's busbw shows once you have predicted 'ratio' (press a)"] =
    "pair 의 busbw 는 'ratio' 를 예측한 뒤에 나온다 (a 를 누른다)",
  ["no run with one rank per node"] = "노드당 rank 하나인 run 이 없다",
  ["wrong elements in the three runs"] = "세 run 의 틀린 element 수",
  ["your prediction of busbw one node / one rank per node"] = "예측한 busbw 비율 (한 노드 / 노드당 rank 하나)",
  ["the step text: what each run's bytes cross, NVLink or a NIC, in one direction"] =
    "step 본문: 각 run 의 byte 가 한 방향으로 건너는 것 (NVLink 또는 NIC)",
  ["press a to answer"] = "a 를 눌러 답한다",
  ["NICs of one node"] = "노드 하나의 NIC 수",
  ["topology pane (1): the mlx5 rows of host 0"] = "topology pane (1): host 0 의 mlx5 행",

  -- step 2
  ["Which transport did NCCL pick? Read your own log"] = "NCCL 은 어떤 transport 를 골랐나? 내 log 를 읽는다",
  ["The table 'transports in your log' lists every ring edge: 'from -> to' and what NCCL printed after 'via'."] =
    "'log 의 transport' 표에 ring 의 모든 edge 가 나온다: 'from -> to' 와 NCCL 이 'via' 뒤에 찍은 것.",
  ["Inside a node: P2P (NVLink or PCIe) or SHM (host memory). Between nodes: NET/IB or NET/Socket; " ..
   "GDRDMA at the end means GPUDirect RDMA."] =
    "노드 안: P2P (NVLink 또는 PCIe) 또는 SHM (host memory). 노드 사이: NET/IB 또는 NET/Socket; " ..
    "끝의 GDRDMA 는 GPUDirect RDMA 를 뜻한다.",
  ["Transport between rank 0 and rank 1 (e.g. P2P/CUMEM, SHM, NET/IB; 'none' if no such link)?"] =
    "rank 0 과 rank 1 사이의 transport 는 (예: P2P/CUMEM, SHM, NET/IB; 그런 link 가 없으면 'none')?",
  ["Transport of a ring edge that leaves a node (NET/IB, NET/Socket; 'none' if none)?"] =
    "노드를 나가는 ring edge 의 transport 는 (NET/IB, NET/Socket; 없으면 'none')?",
  ["Does that network edge use GPUDirect RDMA (yes/no; 'none' if there is no network edge)?"] =
    "그 network edge 는 GPUDirect RDMA 를 쓰는가 (yes/no; network edge 가 없으면 'none')?",
  ["transport / link"] = "transport / link",
  ["links / via"] = "link 수 / via",
  ["transports in your log (%d ranks)"] = "log 의 transport (rank %d 개)",
  ["no NCCL INFO line was captured from the run, so there is nothing to read"] =
    "run 에서 NCCL INFO 줄을 하나도 잡지 못해서 읽을 것이 없다",
  ["no NCCL lines"] = "NCCL 줄 없음",
  ["NCCL_DEBUG=INFO output"] = "NCCL_DEBUG=INFO 출력",
  ["transport rank 0 -> rank 1"] = "transport rank 0 -> rank 1",
  ["results pane (3), table 'transports in your log'"] = "results pane (3), 'log 의 transport' 표",
  ["transport leaving a node"] = "노드를 나가는 transport",
  ["results pane (3): the links with NET/"] = "results pane (3): NET/ 이 붙은 link",
  ["GPUDirect RDMA on the network edge"] = "network edge 의 GPUDirect RDMA",
  ["the 'via' text: .../GDRDMA or not"] = "'via' 뒤의 글: .../GDRDMA 유무",

  -- step 3
  ["GPUDirect RDMA on and off"] = "GPUDirect RDMA 를 켜고 끄기",
  ["Without GPUDirect RDMA every NIC transfer is staged through host memory: the text says at what rate " ..
   "the sim moves it. Then ask whether the NICs were the only limit of this all_reduce with it on - " ..
   "step 1's 'both nodes' row against 8 NICs of the pair's busbw."] =
    "GPUDirect RDMA 가 없으면 NIC 전송마다 host memory 를 거쳐 staging 된다: sim 이 그것을 어떤 속도로 " ..
    "옮기는지는 본문에 있다. 그다음, 켜져 있을 때 이 all_reduce 를 묶은 것이 NIC 뿐이었는지 따져본다 - " ..
    "step 1 의 '두 노드' 행 대 pair busbw 의 NIC 8 개 분.",
  ["On the sim the switch is the no-gdr fault; on GPUs NCCL_NET_GDR_LEVEL=LOC."] =
    "sim 에서는 no-gdr fault 가 스위치다; GPU 에서는 NCCL_NET_GDR_LEVEL=LOC.",
  ["Predict, before the table shows it: how many percent slower is all_reduce across both nodes without " ..
   "GPUDirect RDMA (within 20 points)?"] =
    "표가 보여주기 전에 예측한다: GPUDirect RDMA 없이 두 노드에 걸친 all_reduce 는 몇 퍼센트 느려지나 " ..
    "(20 point 안)?",
  [" (beyond PXB)"] = " (PXB 너머)",
  ["GPU 0 and the NICs of its node"] = "GPU 0 과 그 노드의 NIC",
  ["GPUDirect RDMA by default"] = "기본 설정의 GPUDirect RDMA",
  ["no GDRDMA"] = "GDRDMA 없음",
  ["%s %% measured, %s %% predicted (the note: about 50 %%)"] = "측정 %s %%, 예측 %s %% (노트: 약 50 %%)",
  ["predict 'slowdown' first"] = "먼저 'slowdown' 을 예측한다",
  ["the run without GPUDirect RDMA shows once you have predicted 'slowdown' (press a)"] =
    "GPUDirect RDMA 없는 run 은 'slowdown' 을 예측한 뒤에 나온다 (a 를 누른다)",
  ["GPUDirect RDMA (all_reduce across nodes)"] = "GPUDirect RDMA (노드 사이 all_reduce)",
  ["log says"] = "log 내용",
  ["emulated nodes use NCCL's socket transport, where GPUDirect RDMA does not apply: " ..
   "nothing to switch off here. %s"] =
    "emulated node 는 NCCL 의 socket transport 를 쓰고, 거기에는 GPUDirect RDMA 가 해당되지 않는다: " ..
    "여기서는 끌 것이 없다. %s",
  ["InfiniBand between hosts"] = "host 사이의 InfiniBand",
  ["GPUDirect RDMA only matters between nodes"] = "GPUDirect RDMA 는 노드 사이에서만 의미가 있다",
  ["the log of the 'off' run has no GDRDMA link"] = "'off' run 의 log 에 GDRDMA link 가 없음",
  ["your prediction of the slowdown without GPUDirect RDMA"] = "예측한 감속 (GPUDirect RDMA 없을 때)",
  ["the step text: what the sim assumes of the bounce, and what else bounds the " ..
   "all_reduce across both nodes (step 1's table)"] =
    "step 본문: sim 이 bounce 에 대해 가정하는 것, 그리고 두 노드에 걸친 all_reduce 를 묶는 " ..
    "다른 것 (step 1 의 표)",

  -- step 4
  ["Exercise: a hierarchical all-reduce"] = "실습: hierarchical all-reduce",
  ["Two communicators: the ranks of one node, and GPU k of every node (a rail). split's color says who is " ..
   "together, its key the order inside."] =
    "communicator 두 개: 한 노드의 rank 들, 그리고 모든 노드의 GPU k (rail). split 의 color 는 누가 " ..
    "함께인지를, key 는 그 안의 순서를 정한다.",
  ["Each of the three steps is one collective on one of your two communicators, in the order of the file's " ..
   "comment: the first and the last stay inside the node, the middle one crosses the network - and only the " ..
   "shard (n / node_size elements) crosses it."] =
    "세 단계는 각각 두 communicator 중 하나 위의 collective 하나다. 순서는 파일의 주석대로: 첫째와 " ..
    "마지막은 노드 안에 머물고, 가운데 것이 network 를 건넌다 - 그리고 건너는 것은 shard " ..
    "(n / node_size element) 뿐이다.",
  ["%s of %d elements"] = "%s (element %d 개)",
  ["nothing"] = "없음",
  ["your hier.lua: which communicator each of the three steps runs on"] =
    "내 hier.lua: 세 단계 각각이 도는 communicator",
  ["rank %d: %s"] = "rank %d: %s",
  ["intra, your communicator inside a node, holds ranks {%s}%s; the ranks of rank %d's node are {%s}"] =
    "노드 안 communicator 인 intra 의 rank: {%s}%s; rank %d 의 노드에 있는 rank: {%s}",
  [" - GPU %d of each node, a rail"] = " - 각 노드의 GPU %d, 즉 rail",
  ["inter, your communicator across nodes, holds ranks {%s}%s; GPU %d of each node is {%s}"] =
    "노드 사이 communicator 인 inter 의 rank: {%s}%s; 각 노드의 GPU %d: {%s}",
  [" - the ranks inside a node"] = " - 한 노드 안의 rank 들",
  ["besides the flat all_reduce, %s ran on the world communicator (all %d ranks): the hierarchy's steps " ..
   "belong on your two split communicators"] =
    "flat all_reduce 말고도 %s 까지 world communicator (rank %d 개 전부) 에서 돌았다: hierarchy 의 단계들은 " ..
    "split 한 두 communicator 에서 돌아야 한다",
  ["world: %s"] = "world: %s",
  ["world: the flat all_reduce only"] = "world: flat all_reduce 만",
  ["%s ran on your communicator across nodes: only the shard's all_reduce crosses the network; the " ..
   "reduce-scatter and the all-gather stay inside a node"] =
    "노드 사이 communicator 에서 돈 것: %s. network 를 건너는 것은 shard 의 all_reduce 뿐이고, " ..
    "reduce-scatter 와 all-gather 는 노드 안에 머문다",
  ["across nodes: %s"] = "노드 사이: %s",
  ["across nodes: one all_reduce"] = "노드 사이: all_reduce 하나",
  ["an all_reduce ran on your communicator inside a node: the sum over the nodes needs the one across them"] =
    "노드 안 communicator 에서 all_reduce 가 돌았다: 노드들에 걸친 합에는 노드 사이 communicator 가 필요하다",
  ["inside a node: %s"] = "노드 안: %s",
  ["inside a node: a reduce_scatter and an all_gather"] = "노드 안: reduce_scatter 하나와 all_gather 하나",
  ["your communicator across nodes ran nothing: no shard was summed over the nodes, so each node keeps its own sum"] =
    "노드 사이 communicator 가 아무것도 돌리지 않았다: 어떤 shard 도 노드들에 걸쳐 더해지지 않아서, " ..
    "각 노드가 자기 합만 갖고 있다",
  ["across nodes: nothing"] = "노드 사이: 없음",
  ["one all_reduce across nodes"] = "노드 사이 all_reduce 하나",
  ["the all-reduce across nodes moved %d elements per GPU: the whole buffer crossed the network; in the " ..
   "hierarchy only 1/%d of it does (the node's own step comes first)"] =
    "노드 사이 all-reduce 가 GPU 당 element %d 개를 옮겼다: buffer 전체가 network 를 건넜다; hierarchy 에서는 " ..
    "그중 1/%d 만 건넌다 (노드 안의 단계가 먼저 온다)",
  ["an all_reduce of %d elements across nodes"] = "노드 사이 element %d 개의 all_reduce",
  ["each step ran on its communicator, and only a shard crossed the network"] =
    "각 단계가 제 communicator 에서 돌았고, network 를 건넌 것은 shard 뿐이다",
  ["hier.lua on %d ranks"] = "rank %d 개에서 hier.lua",
  ["all_reduce of %d MiB on %d ranks (%d per node), time in us"] =
    "all_reduce %d MiB, rank %d 개 (노드당 %d), 시간 단위 us",
  ["version"] = "버전",
  ["time (us)"] = "시간 (us)",
  ["flat (NCCL's choice)"] = "flat (NCCL 의 선택)",
  ["hierarchical (yours)"] = "hierarchical (내 것)",
  ["; the counts fit a communicator of another size - is each step on the communicator it needs?"] =
    "; count 가 다른 크기의 communicator 에 맞는다 - 각 단계가 필요한 communicator 위에 있나?",
  ["hier.lua did not finish on rank %d: %s (the plan: %d ranks inside a node x %d nodes%s)"] =
    "hier.lua 가 rank %d 에서 끝나지 않았다: %s (계획: 노드 안 rank %d 개 x 노드 %d 개%s)",
  ["an error"] = "error",
  ["the script finishes on every rank"] = "모든 rank 에서 script 가 끝남",
  ["log pane (5); your hier.lua: the two splits, and which communicator each step runs on"] =
    "log pane (5); 내 hier.lua: split 두 개와 각 단계가 도는 communicator",
  ["elements where your hierarchical result differs from the flat all_reduce (worst rank)"] =
    "hierarchical 결과가 flat all_reduce 와 다른 element 수 (가장 나쁜 rank)",
  ["your hier.lua; results of every rank"] = "내 hier.lua; 모든 rank 의 결과",
  ["communicator sizes (inside x across)"] = "communicator 크기 (노드 안 x 노드 사이)",
  ["your splits"] = "내 split",
  ["rank 0's communicators (ranks inside a node x nodes)"] = "rank 0 의 communicator (노드 안 rank 수 x 노드 수)",
  ["your two comm:split calls"] = "내 comm:split 호출 두 개",
  ["ReduceScatter and AllGather in the NCCL log of your run"] = "내 run 의 NCCL log 에 있는 ReduceScatter 와 AllGather",

  -- step 5
  ["SHARP: reducing inside the network (a what-if)"] = "SHARP: network 안에서 reduce 하기 (what-if)",
  ["A ring all-reduce sends 2(n-1)/n of the buffer out of every node; with in-network reduction each node sends it once."] =
    "ring all-reduce 는 모든 노드에서 buffer 의 2(n-1)/n 을 내보낸다; in-network reduction 이면 각 노드가 한 번 보낸다.",
  ["n is every rank of the ring, not the nodes: how many ranks has the ring of the question's cluster?"] =
    "n 은 노드 수가 아니라 ring 의 모든 rank 다: 질문의 cluster 에서 ring 에는 rank 가 몇 개인가?",
  ["On a cluster of 4 such nodes (32 GPUs), all_reduce over every GPU: ring network bytes per node / SHARP " ..
   "network bytes per node?"] =
    "이런 노드 4 대 (GPU 32 개) 의 cluster 에서 모든 GPU 에 걸친 all_reduce: 노드당 network byte, " ..
    "ring / SHARP 는?",
  ["the ring across nodes (NCCL_ALGO=Ring)"] = "노드 사이 ring (NCCL_ALGO=Ring)",
  ["as NCCL picks"] = "NCCL 이 고르는 대로",
  ["S (NVLS in the node, a tree across)"] = "S (노드 안은 NVLS, 노드 사이는 tree)",
  ["all_reduce across nodes: ring, NCCL's choice, in-network reduction"] =
    "노드 사이 all_reduce: ring, NCCL 의 선택, in-network reduction",
  [" (SIMULATED; row 3 a what-if)"] = " (SIMULATED; 3 행은 what-if)",
  ["Algo (NCCL's log)"] = "Algo (NCCL log)",
  ["network bytes per node"] = "노드당 network byte",
  ["S (summed in the IB switch)"] = "S (IB switch 안에서 더함)",
  ["ring / SHARP network bytes per node, %d ranks"] = "노드당 network byte 비율 (ring / SHARP), rank %d 개",
  ["the step text: who sends what across the network, for n ranks"] =
    "step 본문: rank n 개일 때 각자가 network 너머로 보내는 양",

  -- step 6
  ["A node dies: fail-stop, then resume from a checkpoint"] = "노드가 죽는다: fail-stop, 그리고 checkpoint 에서 재개",
  ["The run's report names the rank that died (table 'fail-stop')."] =
    "run 의 보고가 죽은 rank 를 지목한다 ('fail-stop' 표).",
  ["The job resumes from the last checkpoint it saved before the crash."] =
    "job 은 crash 전에 마지막으로 저장한 checkpoint 에서 재개한다.",
  ["Which rank died?"] = "어느 rank 가 죽었나?",
  ["From which step did the job resume (the last checkpoint)?"] = "job 은 어느 step 에서 재개했나 (마지막 checkpoint)?",
  ["training without a fault (the reference)"] = "fault 없는 학습 (기준)",
  ["training; rank %d dies"] = "학습; 죽는 rank: %d",
  ["resuming from step %d"] = "step %d 에서 재개",
  ["the crashed run"] = "죽은 run",
  ["finished (no crash?)"] = "끝남 (crash 없음?)",
  ["failed: %s"] = "실패: %s",
  ["last checkpoint saved"] = "마지막으로 저장한 checkpoint",
  ["none"] = "없음",
  ["resumed run"] = "재개한 run",
  ["finished"] = "끝남",
  ["final checksum, no fault"] = "최종 checksum, fault 없음",
  ["final checksum, crashed + resumed"] = "최종 checksum, crash + 재개",
  ["the run with a dying rank finished: the fault did not fire"] =
    "rank 가 죽어야 할 run 이 끝났다: fault 가 발동하지 않았다",
  ["the run fails naming the rank"] = "run 이 rank 를 지목하며 실패",
  ["the rank the runtime named"] = "runtime 이 지목한 rank",
  ["results pane (3), table 'fail-stop'"] = "results pane (3), 'fail-stop' 표",
  ["final parameters after crash + resume vs a run without fault"] =
    "crash + 재개 뒤의 최종 parameter 대 fault 없는 run",
  ["table 'fail-stop'"] = "'fail-stop' 표",
  ["the rank that died"] = "죽은 rank",
  ["table 'fail-stop', the crashed run"] = "'fail-stop' 표, 죽은 run",
  ["the step the job resumed from"] = "job 이 재개한 step",
  ["table 'fail-stop', last checkpoint"] = "'fail-stop' 표, 마지막 checkpoint",
}
