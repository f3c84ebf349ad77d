-- labs/09-pitfalls/lang/ko.lua - the Korean of this lab's texts: the English
-- text exactly as lab.lua writes it -> its Korean, placeholders in the same
-- order (docs/lab-authoring.md, the language contract of issue 29).
return {
  -- lab
  ["The pitfalls clinic"] = "pitfall 클리닉",
  ["Every pitfall of the note reproduced, seen and fixed: mismatch, stale data, the legacy default stream, " ..
   "hidden host syncs, P2P disabled, fragmentation, IPC handle lifetime"] =
    "노트의 pitfall 을 하나씩 재현하고, 보고, 고친다: mismatch, stale data, legacy default stream, " ..
    "숨은 host sync, P2P 비활성, fragmentation, IPC handle 의 lifetime",
  ["sim (any preset; one-GPU machines say what they cannot show) and cuda (1+ GPUs)"] =
    "sim (어느 preset 이든; GPU 하나인 기계는 보여줄 수 없는 것을 그렇다고 말한다) 과 cuda (GPU 1 개 이상)",

  -- shared
  ["%s did not finish on rank %d: %s"] = "%s 실행이 rank %d 에서 끝나지 않았다: %s",
  ["an error"] = "error",
  ["the script finishes"] = "script 가 끝남",
  ["log pane (5)"] = "log pane (5)",
  ["results pane (3)"] = "results pane (3)",
  ["timeline pane (4)"] = "timeline pane (4)",
  ["topology pane (1)"] = "topology pane (1)",
  ["press a to answer"] = "a 를 눌러 답한다",
  ["version"] = "버전",
  ["yours"] = "내 것",

  -- step 1
  ["Collective mismatch: a hang, caught (lab 8)"] = "collective mismatch: hang 을 잡는다 (lab 8)",
  ["The analysis line names what each rank entered: the same all_reduce with two counts."] =
    "분석 줄이 각 rank 가 무엇에 들어갔는지 지목한다: 같은 all_reduce, count 는 두 가지.",
  ["Lab 8 (collective-mismatch deadlock) takes the watchdog and the flight recorder apart."] =
    "lab 8 (collective-mismatch deadlock) 에서 watchdog 과 flight recorder 를 하나하나 뜯어본다.",
  ["mismatch.lua bug (the watchdog ends it after 3 s)"] = "mismatch.lua bug (3 s 뒤 watchdog 이 끝낸다)",
  ["mismatch.lua bug, fingerprint check on"] = "mismatch.lua bug, fingerprint check 켬",
  ["outcome"] = "결과",
  ["finished?!"] = "끝났다?!",
  ["finished in %s s"] = "%s s 만에 끝남",
  ["results pane (3), row bug"] = "results pane (3), bug 행",
  ["element 0 after the fixed all_reduce of 1s on 2 ranks"] = "rank 2 개에서 1 로 채운 고친 all_reduce 뒤의 element 0",

  -- step 2
  ["Stale data across GPUs: no event (lab 3)"] = "GPU 사이의 stale data: event 없음 (lab 3)",
  ["The fix is the note's e0.record() on the producer's stream and e0.wait() on the consumer's."] =
    "해결은 노트의 e0.record() 를 producer 의 stream 에, e0.wait() 를 consumer 의 stream 에 두는 것이다.",
  ["The log pane's RACE line names both sides: the write and the read that nothing orders after it."] =
    "log pane 의 RACE 줄이 양쪽을 지목한다: write, 그리고 아무것도 그 뒤로 순서를 정해주지 않은 read.",
  ["GPU%s -> GPU%s: copy after 8 fills"] = "GPU%s -> GPU%s: fill 8 번 뒤의 copy",
  ["checksum right"] = "checksum 맞음",
  ["copy start - fills end (ms)"] = "copy 시작 - fill 끝 (ms)",
  ["no event (bug)"] = "event 없음 (bug)",
  ["event (fix)"] = "event (해결)",
  ["seen"] = "보임",
  ["not seen"] = "안 보임",
  ["the bug reproduced (a wrong checksum, or the copy starting before the fills ended)"] =
    "bug 재현 (틀린 checksum, 또는 fill 이 끝나기 전에 시작한 copy)",
  ["results pane (3), row 'no event'; timeline pane (4)"] = "results pane (3), 'event 없음' 행; timeline pane (4)",
  ["named"] = "지목됨",
  ["not named"] = "지목 안 됨",
  ["the race detector on the bug run (the copy's read of x, not ordered after the fills)"] =
    "bug run 에 대한 race detector (fill 뒤로 순서가 정해지지 않은 copy 의 x read)",
  ["log pane (5): the RACE line of the run without the event"] = "log pane (5): event 없는 run 의 RACE 줄",
  ["the run with the event"] = "event 가 있는 run",
  ["checksum GPU1 read with the event"] = "event 가 있을 때 GPU1 이 읽은 checksum",
  ["results pane (3), row 'event'"] = "results pane (3), 'event' 행",
  ["with the event the copy starts %s ms after the fills end"] = "event 가 있으면 copy 는 fill 이 끝나고 %s ms 뒤에 시작한다",

  -- step 3
  ["Exercise: the legacy default stream serialises"] = "실습: legacy default stream 은 직렬화한다",
  ["mgpu.stream() makes a non-blocking stream; comm:stream() is the communicator's own."] =
    "mgpu.stream() 은 non-blocking stream 을 만든다; comm:stream() 은 communicator 자신의 stream 이다.",
  ["overlap = the time both streams were busy at once / the shorter one's busy time: 0 = serialised, 1 = fully hidden."] =
    "overlap = 두 stream 이 동시에 바빴던 시간 / 더 짧은 쪽의 바쁜 시간: 0 = 직렬, 1 = 완전히 숨겨짐.",
  ["compute and all_reduce, 4 steps (ms); overlap from events on both streams"] =
    "compute 와 all_reduce, 4 step (ms); overlap 은 두 stream 의 event 로 잰다",
  ["both"] = "함께",
  ["legacy default stream (before)"] = "legacy default stream (고치기 전)",
  ["your streams.lua"] = "내 streams.lua",
  ["the overlap measurement gave %s, outside [0, 1]: streams.lua's timing part was changed " ..
   "(only the two stream lines are the exercise)"] =
    "overlap 측정값 %s: [0, 1] 밖이다 - streams.lua 의 timing 부분이 바뀌었다 " ..
    "(실습은 stream 두 줄뿐이다)",
  ["a fraction in [0, 1]"] = "[0, 1] 안의 비율",
  ["your streams.lua, below the TODO lines"] = "내 streams.lua, TODO 줄 아래",
  ["the streams your compute and communication use"] = "compute 와 통신이 쓰는 stream",
  ["overlap of compute and all_reduce"] = "compute 와 all_reduce 의 overlap",
  ["full overlap"] = "완전한 overlap",
  ["results pane (3); timeline pane (4): the two streams side by side"] =
    "results pane (3); timeline pane (4): 나란히 놓인 두 stream",

  -- step 4
  ["Exercise: a hidden host synchronisation in the loop"] = "실습: loop 안에 숨은 host 동기화",
  ["g:get(0) is a copy and a wait: the host stops until the all_reduce is done."] =
    "g:get(0) 은 copy 이자 wait 다: all_reduce 가 끝날 때까지 host 가 멈춘다.",
  ["Read the losses after the loop: one wait for the last all_reduce, then the gets."] =
    "loss 는 loop 뒤에 읽는다: 마지막 all_reduce 를 한 번 기다리고, 그다음 get.",
  ["training loop, 6 steps"] = "학습 loop, 6 step",
  ["step time (ms)"] = "step 시간 (ms)",
  ["loss read every step (before)"] = "매 step loss 읽기 (고치기 전)",
  ["the lab's loop.lua"] = "lab 의 loop.lua",
  ["your loop.lua"] = "내 loop.lua",
  ["the host still waits in every step: %s at %s ran %d times - the reads after the loop need one wait, not one a step"] =
    "host 가 여전히 매 step 기다린다: %s (%s) 가 %d 번 돌았다 - loop 뒤의 읽기에는 step 마다가 아니라 한 번의 wait 면 된다",
  ["%s at %s, %d times"] = "%s (%s), %d 번",
  ["no wait of the host inside the loop"] = "loop 안에서 host 가 기다리지 않음",
  ["your loop.lua, inside the loop"] = "내 loop.lua, loop 안",
  ["the losses your loop reads"] = "내 loop 가 읽는 loss",
  ["results pane (3), column losses"] = "results pane (3), losses 열",
  ["step time before the fix"] = "고치기 전의 step 시간",
  ["your step time (the fix should save >= 15 %%)"] = "내 step 시간 (고치면 15 %% 이상 줄어야 한다)",
  ["results pane (3); timeline pane (4): the gap before each step's compute"] =
    "results pane (3); timeline pane (4): 각 step 의 compute 앞의 gap",

  -- step 5
  ["P2P disabled: NCCL through host memory"] = "P2P 비활성: host memory 를 거치는 NCCL",
  ["Predict from the links, before the table shows it: with P2P a chunk goes GPU to GPU over the link " ..
   "the topology pane names; without it every chunk is copied into host memory and out again over " ..
   "each GPU's PCIe link (lab 1, lab 3's pinned copies)."] =
    "표가 보여주기 전에 link 로부터 예측한다: P2P 가 있으면 chunk 는 topology pane 에 나오는 link 로 " ..
    "GPU 에서 GPU 로 간다; 없으면 chunk 마다 각 GPU 의 PCIe link 로 host memory 에 복사됐다가 " ..
    "다시 나온다 (lab 1, lab 3 의 pinned copy).",
  ["The transport is what the 'off' run's log printed after 'via' for rank 0 -> rank 1."] =
    "transport 는 'off' run 의 log 가 rank 0 -> rank 1 에 대해 'via' 뒤에 찍은 것이다.",
  ["Predict, before the table shows it: how many times faster is all_reduce with P2P than without on this " ..
   "machine (within 50 %)?"] =
    "표가 보여주기 전에 예측한다: 이 기계에서 P2P 가 있는 all_reduce 는 없을 때보다 몇 배 빠른가 (50 % 안)?",
  ["Which transport did NCCL use between rank 0 and rank 1 with P2P disabled?"] =
    "P2P 를 끄면 NCCL 은 rank 0 과 rank 1 사이에 어떤 transport 를 썼나?",
  ["predict it first (question 'ratio'), then run the step again"] =
    "먼저 예측하고 (질문 'ratio'), step 을 다시 돌린다",
  ["%sx measured, %sx predicted (the note: 10x)"] = "측정 %sx, 예측 %sx (노트: 10x)",
  ["P2P on and off: all_reduce 64 MiB, %d ranks (topology GPU0-GPU1: %s)"] =
    "P2P on/off: all_reduce 64 MiB, rank %d 개 (topology GPU0-GPU1: %s)",
  ["ratio"] = "비율",
  ["one GPU: its two ranks share it, so there is no peer to reach by P2P or SHM and nothing to switch off. " ..
   "Run this step on a machine with 2+ GPUs (sim: --machine dgx-h100)"] =
    "GPU 하나: rank 두 개가 그것을 나눠 쓰므로 P2P 나 SHM 으로 닿을 peer 가 없고 끌 것도 없다. " ..
    "이 step 은 GPU 2 개 이상인 기계에서 돌린다 (sim: --machine dgx-h100)",
  ["2+ GPUs in a node"] = "한 노드에 GPU 2 개 이상",
  ["your prediction of the ratio P2P on / off"] = "예측한 비율 (P2P on / off)",
  ["topology pane (1): the GPU0-GPU1 link and each GPU's PCIe link"] =
    "topology pane (1): GPU0-GPU1 link 와 각 GPU 의 PCIe link",
  ["the transport rank 0 -> 1 without P2P"] = "P2P 없을 때 rank 0 -> 1 의 transport",
  ["results pane (3), column 'via'; log pane (5)"] = "results pane (3), 'via' 열; log pane (5)",

  -- step 6
  ["Memory fragmentation and the caching allocator"] = "memory fragmentation 과 caching allocator",
  ["Both numbers are in the first row of the table 'fragmentation', in MiB."] =
    "두 수 모두 'fragmentation' 표의 첫 행에 MiB 로 나온다.",
  ["reserved but unallocated = memory the allocator holds free; the largest free block is what one request can get."] =
    "reserved but unallocated = allocator 가 비워 둔 채 쥐고 있는 memory; 가장 큰 free block 이 요청 하나가 받을 수 있는 크기다.",
  ["How many MiB did the allocator hold free when 12 MiB failed?"] =
    "12 MiB 가 실패했을 때 allocator 가 비워 둔 채 쥐고 있던 memory 는 몇 MiB 인가?",
  ["How large (MiB) was the largest free block then?"] = "그때 가장 큰 free block 은 몇 MiB 였나?",
  ["every other freed"] = "하나 건너 하나씩 free",
  ["every other freed, expandable_segments:True"] = "하나 건너 하나씩 free, expandable_segments:True",
  ["first ten freed (another order)"] = "처음 열 개 free (다른 순서)",
  ["allocated"] = "할당됨",
  ["error: %s"] = "error: %s",
  ["12 MiB after '%s': %s"] = "'%s' 뒤의 12 MiB: %s",
  ["fragmentation: 12 MiB after freeing 10 of 20 tensors of 5 MiB"] =
    "fragmentation: 5 MiB tensor 20 개 중 10 개를 free 한 뒤 12 MiB",
  ["reserved, unallocated (MiB)"] = "reserved, unallocated (MiB)",
  ["largest free block (MiB)"] = "가장 큰 free block (MiB)",
  ["out of memory, largest free block named"] = "out of memory, 가장 큰 free block 을 알려줌",
  ["failed otherwise"] = "다른 식으로 실패",
  ["12 MiB after freeing every other tensor"] = "tensor 를 하나 건너 하나씩 free 한 뒤의 12 MiB",
  ["log pane (5): the OOM message"] = "log pane (5): OOM 메시지",
  ["the same with expandable_segments:True"] = "같은 것, expandable_segments:True",
  ["results pane (3), row 2"] = "results pane (3), 2 행",
  ["the same with the first ten freed"] = "같은 것, 처음 열 개를 free",
  ["results pane (3), row 3"] = "results pane (3), 3 행",
  ["reserved but unallocated (MiB)"] = "reserved but unallocated (MiB)",
  ["results pane (3), row 1"] = "results pane (3), 1 행",

  -- step 7
  ["IPC handle lifetime (lab 3)"] = "IPC handle 의 lifetime (lab 3)",
  ["The order that works: importers ipc_close, a barrier, then the exporter frees."] =
    "제대로 되는 순서: importer 가 ipc_close, barrier, 그다음 exporter 가 free.",
  ["open refused: %s"] = "open 거부: %s",
  ["read refused: %s"] = "read 거부: %s",
  ["read the owner's data"] = "주인의 data 를 읽음",
  ["read OTHER data, no error"] = "남의 data 를 읽음, error 없음",
  ["rank 1 maps rank 0's buffer"] = "rank 1 이 rank 0 의 buffer 를 map 한다",
  ["what rank 1 got"] = "rank 1 이 받은 것",
  ["freed before rank 1 was done (bug)"] = "rank 1 이 끝나기 전에 free (bug)",
  ["close, barrier, free (fix)"] = "close, barrier, free (해결)",
  ["checksum rank 1 read through the handle (fix)"] = "rank 1 이 handle 로 읽은 checksum (해결)",
  ["results pane (3), row fix"] = "results pane (3), '해결' 행",
  ["refused"] = "거부됨",
  ["not caught"] = "잡히지 않음",
  ["the SIMULATED machine refuses the dangling handle"] = "SIMULATED 기계가 dangling handle 을 거부함",
}
