-- labs/02-allreduce/lang/ko.lua - the Korean of this lab's texts: the English
-- text exactly as lab.lua writes it -> its Korean, placeholders in the same
-- order (docs/lab-authoring.md, the language contract of issue 29).
return {

  -- lab
  ["All-reduce baseline"] = "All-reduce 기준선",
  ["An nccl-tests sweep 8 B - 256 MiB, algbw vs busbw, your links' peak, LL vs Simple"] =
    "nccl-tests sweep 8 B - 256 MiB, algbw vs busbw, 내 link 의 peak, LL vs Simple",
  ["cuda (one rank per GPU; 2 ranks as emulated nodes on one GPU) and sim (any preset, faults too)"] =
    "cuda (GPU 하나에 rank 하나; GPU 1 개면 rank 2 개를 emulated node 로) 와 sim (어느 preset 이든, fault 도)",
  ["results pane (3)"] = "results pane (3)",
  ["results pane (3), last row"] = "results pane (3), 마지막 행",
  ["GPU0-GPU1, recorded in lab 1 on this machine"] = "GPU0-GPU1, 이 머신에서 lab 1 이 기록한 것",
  ["GPU0-GPU1 in the topology"] = "topology 의 GPU0-GPU1",
  ["GPU0's PCIe link"] = "GPU0 의 PCIe link",

  -- step 1: the sweep
  ["Sweep 8 B to 256 MiB"] = "8 B 에서 256 MiB 까지 sweep",
  ["The results pane (3) shows every row; the last one is 256 MiB."] =
    "results pane (3) 에 모든 행이 나온다; 마지막 행이 256 MiB 다.",
  ["Answer busbw256 with the busbw column of the 256 MiB row, in GB/s (two decimals are plenty)."] =
    "busbw256 에는 256 MiB 행의 busbw column 값을 GB/s 로 답한다 (소수점 둘째 자리면 충분하다).",
  ["busbw at 256 MiB in GB/s (results pane, last row)?"] = "256 MiB 의 busbw 는 몇 GB/s 인가 (results pane, 마지막 행)?",
  ["all_reduce, %d ranks"] = "all_reduce, rank %d 개",
  ["sizes measured (8 B, 16 B, ... 256 MiB)"] = "잰 크기의 수 (8 B, 16 B, ... 256 MiB)",
  ["wrong elements (#wrong, all rows)"] = "틀린 element 수 (#wrong, 모든 행)",
  ["results pane (3), column #wrong"] = "results pane (3), #wrong column",
  ["your reading of busbw at 256 MiB"] = "내가 읽은 256 MiB 의 busbw",

  -- step 2: busbw.lua
  ["Exercise: bus bandwidth from algorithm bandwidth"] = "실습: algorithm bandwidth 에서 bus bandwidth 로",
  ["busbw counts what one rank's link really carries, per byte of the buffer the program asked for. Cut the buffer into n blocks, one per rank, and count the blocks a rank must send in each collective."] =
    "busbw 는 프로그램이 요청한 buffer 의 byte 하나당 rank 하나의 link 가 실제로 나르는 양을 센다. buffer 를 rank 마다 하나씩 n 개 block 으로 자르고, collective 마다 rank 하나가 보내야 하는 block 을 센다.",
  ["all_reduce on a ring is two passes: a reduce-scatter (each rank ends with one block summed over all ranks), then an all-gather of those blocks. How many blocks does a rank send in each pass? Its own block it never has to receive."] =
    "ring 위의 all_reduce 는 두 pass 다: reduce-scatter (각 rank 가 모든 rank 에 걸쳐 합한 block 하나를 갖고 끝난다), 그다음 그 block 들의 all-gather. pass 마다 rank 하나가 block 을 몇 개 보내는가? 자기 block 은 받을 필요가 없다.",
  ["broadcast: the root's data goes round once, every rank passing on what it got - think of what each link carries, not of how many ranks receive. Try your formula at n = 2 and n = 3 by hand."] =
    "broadcast: root 의 데이터가 한 바퀴 돈다, 각 rank 가 받은 것을 다음으로 넘기면서 — 몇 rank 가 받는지가 아니라 link 마다 무엇을 나르는지 생각한다. n = 2 와 n = 3 에서 내 공식을 손으로 확인해 본다.",
  ["busbw.lua must return a function(coll, algbw, n): %s"] = "busbw.lua 는 function(coll, algbw, n) 을 돌려줘야 한다: %s",
  ["a %s"] = "%s 값",
  ["an error"] = "error",
  ["a number"] = "숫자",
  ["your busbw.lua"] = "내 busbw.lua",
  ["busbw.lua raised an error for %s: %s"] = "busbw.lua 가 %s 에서 error 를 냈다: %s",
  ["busbw: yours vs the bench"] = "busbw: 내 값 vs bench",
  ["bench busbw"] = "bench busbw",
  ["your busbw"] = "내 busbw",
  ["raised an error: %s"] = "error 가 났다: %s",
  ["returned %s, not a number"] = "숫자가 아닌 값을 돌려주었다: %s",
  ["busbw.lua %s for %s on n = %d"] = "busbw.lua: %s (%s, n = %d)",
  ["a number: busbw in GB/s"] = "숫자: GB/s 단위의 busbw",
  ["your busbw.lua; the step text: bytes per rank"] = "내 busbw.lua; step 본문: rank 당 byte",
  ["n = %d: %.4g x algbw"] = "n = %d: %.4g x algbw",
  ["busbw = algbw x %s's factor for n ranks: the bench's busbw column on its %d ranks, row by row, and the factor at n = %s"] =
    "busbw = algbw x rank n 개에서의 %s 계수: bench 의 rank %d 개에서는 행마다 bench 의 busbw column, 그리고 n = %s 에서의 계수",
  ["your %s busbw matches the bench's busbw column on %d ranks (%d rows) and the factor at n = %s"] =
    "내 %s busbw 가 rank %d 개에서 bench 의 busbw column 과 맞고 (%d 행), n = %s 에서의 계수도 맞다",
  ["your %s busbw is wrong at n = %s"] = "내 %s busbw 가 n = %s 에서 틀렸다",
  [" (right at n = %s)"] = " (n = %s 에서는 맞다)",
  ["your %s busbw is wrong on the bench's %d ranks"] = "내 %s busbw 가 bench 의 rank %d 개에서 틀렸다",
  ["on the bench's %d ranks %d of %d rows differ from its busbw column (%s: yours %s, the bench's %s GB/s)"] =
    "bench 의 rank %d 개에서 %d / %d 행이 bench 의 busbw column 과 다르다 (%s: 내 값 %s, bench 의 값 %s GB/s)",
  ["integer division: // drops the fraction of the factor"] = "정수 나눗셈: // 가 계수의 소수 부분을 버린다",
  ["it gives %.3g x algbw at every n - a constant fits one rank count only; the factor depends on n, through the bytes each rank moves"] =
    "모든 n 에서 %.3g x algbw 를 준다 — 상수는 rank 수 하나에만 맞는다; 계수는 rank 마다 옮기는 byte 를 통해 n 에 따라 달라진다",
  ["that is %s's factor, not %s's"] = "그것은 %s 의 계수다, %s 의 것이 아니라",
  [" - all_reduce is a reduce-scatter and then an all-gather"] = " — all_reduce 는 reduce-scatter 다음에 all-gather 다",
  ["yours divides algbw by the factor instead of multiplying it: algbw and busbw swapped"] =
    "계수를 곱하지 않고 algbw 를 계수로 나눈다: algbw 와 busbw 가 뒤바뀌었다",

  -- step 3: the peak
  ["How close to the peak of your links?"] = "내 link 의 peak 에 얼마나 가까운가?",
  ["The bar is the note's: 80 % of the link's peak at the large sizes."] = "기준은 노트의 것이다: 큰 크기에서 link peak 의 80 %.",
  ["If the check fails, its message lists the causes found in the topology: read it against the topology pane (1)."] =
    "check 가 실패하면 메시지가 topology 에서 찾은 원인을 나열한다: topology pane (1) 과 맞춰 읽는다.",
  ["Try the sim with --fault nvlink-down or --machine pcie-4gpu to see the check fail for a reason you know."] =
    "sim 에서 --fault nvlink-down 이나 --machine pcie-4gpu 로 돌려, 이유를 아는 채로 check 가 실패하는 것을 본다.",
  ["all_reduce at the large sizes, the ring (NCCL_ALGO=Ring)"] = "큰 크기의 all_reduce, ring (NCCL_ALGO=Ring)",
  ["sendrecv 256 MiB over the same transport"] = "같은 transport 위의 sendrecv 256 MiB",
  ["the socket transport (sendrecv measured between two emulated nodes)"] =
    "socket transport (emulated node 둘 사이에서 잰 sendrecv)",
  ["sendrecv between two ranks sharing GPU 0 (measured)"] = "GPU 0 을 나눠 쓰는 rank 둘 사이의 sendrecv (측정값)",
  ["peak of %s: %s GB/s - %s"] = "%s 의 peak: %s GB/s — %s",
  ["all_reduce busbw at %s"] = "%s 에서의 all_reduce busbw",
  ["results pane (3), last row; topology pane (1)"] = "results pane (3), 마지막 행; topology pane (1)",
  ["%s. Why, from your topology: %s."] = "%s. 내 topology 에서 찾은 이유: %s.",
  ["emulated nodes: %s - every byte crosses a TCP socket through host memory, so NVLink's or PCIe's peak does not apply"] =
    "emulated node: %s — 모든 byte 가 host 메모리를 거쳐 TCP socket 을 건너므로 NVLink 나 PCIe 의 peak 는 해당하지 않는다",
  ["the ranks share GPUs"] = "rank 들이 GPU 를 나눠 쓴다",
  ["no peer access GPU%d -> GPU%d (path %s): NCCL cannot use P2P there and stages the data through host memory (SHM) - the note's 'topology mismatch' pitfall"] =
    "GPU%d -> GPU%d 에 peer access 없음 (path %s): NCCL 이 거기서 P2P 를 쓰지 못하고 데이터를 host 메모리 (SHM) 를 거쳐 보낸다 — 노트의 'topology mismatch' 함정",
  ["the slowest hop of the ring is %s at %.1f GB/s: a ring runs at the speed of its slowest link"] =
    "ring 의 가장 느린 hop 은 %s, %.1f GB/s: ring 은 가장 느린 link 의 속도로 돈다",
  ["GPU0-GPU1 is %s, a PCIe path - no NVLink between them (nvidia-smi topo -m shows the same)"] =
    "GPU0-GPU1 은 %s, PCIe path 다 — 둘 사이에 NVLink 가 없다 (nvidia-smi topo -m 도 같은 것을 보여준다)",
  ["topology note: %s"] = "topology 메모: %s",
  ["SIMULATED machine %s: the numbers are the link model's"] = "SIMULATED 머신 %s: 숫자는 link model 의 것이다",

  -- step 4: NVLink SHARP
  ["NVLink SHARP: busbw above the link's peak"] = "NVLink SHARP: link 의 peak 를 넘는 busbw",
  ["Count bytes per GPU, phase by phase, for a buffer of S on n GPUs: what leaves a GPU when the switch reads its buffer for the sums, and when it stores its own reduced shard; the same comes in the other way."] =
    "n 개 GPU 위 크기 S 의 buffer 에 대해 GPU 당 byte 를 phase 별로 센다: switch 가 합을 위해 buffer 를 읽을 때, 그리고 GPU 가 reduce 된 자기 shard 를 store 할 때 GPU 에서 나가는 것; 반대 방향으로 들어오는 것도 같다.",
  ["link_gbs is those bytes per GPU per direction over the time of one call: a multiple of algbw, and the multiple depends on n."] =
    "link_gbs 는 그 GPU 당, 방향당 byte 를 호출 한 번의 time 으로 나눈 것이다: algbw 의 배수이고, 그 배수는 n 에 따라 달라진다.",
  ["nvls_peak: if a link moved its peak, the time would be the bytes of the first hint over that peak; busbw is S / time x 2(n-1)/n whatever the algorithm was."] =
    "nvls_peak: link 가 peak 만큼 옮긴다면 time 은 첫 hint 의 byte 를 그 peak 로 나눈 값이다; busbw 는 algorithm 이 무엇이었든 S / time x 2(n-1)/n 이다.",
  ["With NVLS at 256 MiB, how many GB/s does one GPU's NVLink carry in one direction?"] =
    "NVLS 로 256 MiB 일 때, GPU 하나의 NVLink 는 한 방향으로 몇 GB/s 를 나르는가?",
  ["What busbw would NVLS show on these GPUs if every link ran at its peak?"] =
    "모든 link 가 peak 로 돈다면 이 GPU 들에서 NVLS 의 busbw 는 얼마로 나올까?",
  ["all_reduce 1 MiB - 256 MiB as NCCL picks"] = "NCCL 이 고르는 대로 all_reduce 1 MiB - 256 MiB",
  ["all_reduce, %d ranks: as NCCL picks, and NCCL_NVLS_ENABLE=0"] =
    "all_reduce, rank %d 개: NCCL 이 고르는 대로, 그리고 NCCL_NVLS_ENABLE=0",
  ["the sweep measured nothing"] = "sweep 이 아무것도 재지 못했다",
  ["no rows"] = "행 없음",
  ["emulated nodes talk over sockets"] = "emulated node 는 socket 으로 통신한다",
  ["%d ranks share %d GPU"] = "rank %d 개가 GPU %d 개를 나눠 쓴다",
  ["%d ranks share %d GPUs"] = "rank %d 개가 GPU %d 개를 나눠 쓴다",
  ["GPU0-GPU1 is %s, not NVLink"] = "GPU0-GPU1 은 %s, NVLink 가 아니다",
  ["NCCL chose %s at %s"] = "NCCL 이 고른 것은 %s (%s 에서)",
  ["no NVLink SHARP on this machine (%s): NCCL never picks NVLS without NVSwitches. The questions are for a DGX: mgpulab run 2 --step nvls --backend sim --machine dgx-h100"] =
    "이 머신에는 NVLink SHARP 가 없다 (%s): NVSwitch 가 없으면 NCCL 은 NVLS 를 고르지 않는다. 질문은 DGX 용이다: mgpulab run 2 --step nvls --backend sim --machine dgx-h100",
  ["algorithm at %s: %s"] = "%s 에서의 algorithm: %s",
  ["NVLS where the machine has it"] = "머신에 있으면 NVLS",
  ["results pane (3), column algo/proto"] = "results pane (3), algo/proto column",
  ["NVLS busbw at %s"] = "%s 에서의 NVLS busbw",
  ["the ring's (NCCL_NVLS_ENABLE=0): NVLS should beat it by 10 %%"] =
    "ring 의 busbw (NCCL_NVLS_ENABLE=0): NVLS 가 10 %% 이상 앞서야 한다",
  ["GB/s one GPU's NVLink carries each way under NVLS"] = "NVLS 에서 GPU 하나의 NVLink 가 방향마다 나르는 GB/s",
  ["the step text's two phases: bytes per GPU for S on n GPUs; results pane (3), algbw"] =
    "step 본문의 두 phase: n 개 GPU 위 S 에 대한 GPU 당 byte; results pane (3), algbw",
  [" - that is busbw: the ring's bytes per link, which NVLS does not move"] =
    " — 그것은 busbw 다: ring 의 link 당 byte 인데, NVLS 는 그만큼 옮기지 않는다",
  [" - a GPU moves more than its buffer once each way: count the reduced shard too"] =
    " — GPU 는 방향마다 자기 buffer 한 번보다 많이 옮긴다: reduce 된 shard 도 센다",
  ["NVLS busbw with every link at its peak"] = "모든 link 가 peak 로 돌 때의 NVLS busbw",
  ["step 3's peak of your link; the bytes per GPU of link_gbs; busbw's factor"] =
    "step 3 의 내 link peak; link_gbs 의 GPU 당 byte; busbw 의 계수",
  [" - that is the link's own peak; busbw is the ring's formula applied to NVLS's time"] =
    " — 그것은 link 자체의 peak 다; busbw 는 NVLS 의 time 에 ring 의 공식을 적용한 것이다",
  ["NVLS reached %.0f %% of its peak busbw (%.0f of %.0f GB/s): the switch's reduction, not the links, sets its pace - the 80 %% rule is the ring's (step 3)"] =
    "NVLS 는 자기 peak busbw 의 %.0f %% 에 이르렀다 (%.0f / %.0f GB/s): link 가 아니라 switch 의 reduction 이 속도를 정한다 — 80 %% 규칙은 ring 의 것이다 (step 3)",
  [" - the measured %.0f GB/s is %.0f %% of it: Hopper's NVLS is bound by the switch's reduction, not by the links"] =
    " — 잰 값 %.0f GB/s 는 그것의 %.0f %% 다: Hopper 의 NVLS 는 link 가 아니라 switch 의 reduction 에 묶여 있다",

  -- step 5: protocols
  ["LL vs Simple: small and large messages"] = "LL vs Simple: 작은 message 와 큰 message",
  ["Compare the time column at 4 KiB and the busbw column at 64 MiB in the table 'LL vs Simple'."] =
    "'LL vs Simple' 표에서 4 KiB 의 time column 과 64 MiB 의 busbw column 을 비교한다.",
  ["Answer with the protocol's name: LL or Simple."] = "protocol 이름으로 답한다: LL 또는 Simple.",
  ["Which protocol is faster at 4 KiB: LL or Simple?"] = "4 KiB 에서 어느 protocol 이 더 빠른가: LL 인가 Simple 인가?",
  ["Which protocol is faster at 64 MiB: LL or Simple?"] = "64 MiB 에서 어느 protocol 이 더 빠른가: LL 인가 Simple 인가?",
  ["NCCL_PROTO=%s at %s"] = "NCCL_PROTO=%s, %s",
  ["LL's time at 4 KiB over sockets (emulated nodes: socket latency hides the protocol, so LL and Simple should be within 20 %%)"] =
    "socket 위 4 KiB 에서 LL 의 time (emulated node: socket latency 가 protocol 을 가리므로 LL 과 Simple 이 20 %% 안에 있어야 한다)",
  ["results pane (3), table 'LL vs Simple', 4K row"] = "results pane (3), 'LL vs Simple' 표, 4K 행",
  ["results pane (3), table 'LL vs Simple', 64M row"] = "results pane (3), 'LL vs Simple' 표, 64M 행",
  ["LL's algbw at 4 KiB"] = "4 KiB 에서 LL 의 algbw",
  ["Simple at 4 KiB (LL should win small messages)"] = "4 KiB 에서 Simple (작은 message 는 LL 이 이겨야 한다)",
  ["Simple's algbw at 64 MiB"] = "64 MiB 에서 Simple 의 algbw",
  ["LL at 64 MiB (Simple should win large messages)"] = "64 MiB 에서 LL (큰 message 는 Simple 이 이겨야 한다)",
  ["the faster protocol at 4 KiB (your measurement)"] = "4 KiB 에서 더 빠른 protocol (내 측정)",
  ["the faster protocol at 64 MiB (your measurement)"] = "64 MiB 에서 더 빠른 protocol (내 측정)",
  ["results pane (3), 4K row"] = "results pane (3), 4K 행",
  ["results pane (3), 64M row"] = "results pane (3), 64M 행",
  ["algbw at %s: LL %s, Simple %s GB/s"] = "%s 에서 algbw: LL %s, Simple %s GB/s",
  ["at 4 KiB the note's protocol for small messages wins here too (which one: your question small)"] =
    "4 KiB 에서 노트가 작은 message 에 쓰는 protocol 이 여기서도 이긴다 (어느 쪽인지는 질문 small 에서)",
  ["at 4 KiB the note's protocol for small messages does not win on this machine"] =
    "4 KiB 에서 노트가 작은 message 에 쓰는 protocol 이 이 머신에서는 이기지 못한다",
  ["the note's small-message protocol ahead at 4 KiB"] = "4 KiB 에서 노트의 작은 message 용 protocol 이 앞선다",
  ["at 64 MiB the note's protocol for large messages wins here too (which one: your question large)"] =
    "64 MiB 에서 노트가 큰 message 에 쓰는 protocol 이 여기서도 이긴다 (어느 쪽인지는 질문 large 에서)",
  ["at 64 MiB the note's protocol for large messages does not win on this machine"] =
    "64 MiB 에서 노트가 큰 message 에 쓰는 protocol 이 이 머신에서는 이기지 못한다",
  ["the note's large-message protocol ahead at 64 MiB"] = "64 MiB 에서 노트의 큰 message 용 protocol 이 앞선다",

  -- step 6: multicast
  ["Multicast: one store, every GPU"] = "Multicast: 한 번의 store, 모든 GPU",
  ["Count what leaves each GPU in each broadcast: the root's copies, and what every other GPU passes on."] =
    "broadcast 마다 각 GPU 에서 나가는 양을 센다: root 가 보내는 copy, 그리고 나머지 GPU 가 넘겨주는 것.",
  ["In NCCL's broadcast every GPU but the last passes each chunk to the next one."] =
    "NCCL 의 broadcast 에서는 마지막 GPU 를 뺀 모든 GPU 가 chunk 를 다음 GPU 로 넘긴다.",
  ["The note's 'BW x N' compares one store with a root whose links carry a copy per GPU."] =
    "노트의 'BW × N' 은 한 번의 store 를, GPU 마다 copy 하나씩을 자기 link 로 보내는 root 와 비교한 것이다.",
  ["NCCL's ring broadcast of S bytes on n GPUs: how many bytes leave all GPUs together, in units of S?"] =
    "GPU n 개에서 S byte 를 NCCL 의 ring broadcast 로 보낼 때, 모든 GPU 에서 나가는 byte 는 합쳐서 S 의 몇 배인가?",
  ["The multicast broadcast: how many bytes leave all GPUs together, in units of S?"] =
    "multicast broadcast 에서는 모든 GPU 에서 나가는 byte 가 합쳐서 S 의 몇 배인가?",
  ["Against which broadcast does multicast give the note's 'BW x N': naive, ring or both?"] =
    "multicast 가 노트의 'BW × N' 을 주는 것은 어느 broadcast 에 비해서인가: naive, ring, 아니면 both?",
  ["broadcast three ways on %d ranks"] = "rank %d 개에서 세 가지 방식으로 broadcast",
  ["this machine cannot multicast: %s"] = "이 머신은 multicast 를 할 수 없다: %s",
  ["mgpulab creates no multicast objects on real GPUs"] = "mgpulab 은 실제 GPU 에 multicast object 를 만들지 않는다",
  ["%s - all three broadcasts run on the sim's dgx-h100 model instead"] =
    "%s — 세 broadcast 모두 대신 sim 의 dgx-h100 model 에서 돌린다",
  ["broadcast three ways on the dgx-h100 model, 8 ranks"] = "dgx-h100 model 의 rank 8 개에서 세 가지 방식으로 broadcast",
  ["broadcast from rank 0, %d ranks (SIMULATED dgx-h100: a what-if)"] =
    "rank 0 에서 broadcast, rank %d 개 (SIMULATED dgx-h100: what-if)",
  ["broadcast from rank 0, %d ranks"] = "rank 0 에서 broadcast, rank %d 개",
  ["naive (us)"] = "naive (us)",
  ["ring (us)"] = "ring (us)",
  ["multicast (us)"] = "multicast (us)",
  ["naive algbw"] = "naive algbw",
  ["ring algbw"] = "ring algbw",
  ["multicast algbw"] = "multicast algbw",
  ["the broadcasts did not all run: %s"] = "broadcast 가 모두 돌지 않았다: %s",
  ["%d rows"] = "%d 행",
  ["naive, ring and multicast at 1, 16 and 256 MiB"] = "1, 16, 256 MiB 에서 naive, ring, multicast",
  ["log pane (5)"] = "log pane (5)",
  ["bytes that leave the GPUs in the ring broadcast, in units of S"] = "ring broadcast 에서 GPU 들에서 나가는 byte (S 단위)",
  ["how the ring passes chunks on (the step text)"] = "ring 이 chunk 를 넘기는 방식 (step 본문)",
  [" - the last GPU of the chain has nobody to pass the data to"] = " — chain 의 마지막 GPU 는 data 를 넘길 상대가 없다",
  [" - that is the root alone: every GPU of the chain passes it on"] =
    " — 그것은 root 혼자의 양이다: chain 의 모든 GPU 가 data 를 넘긴다",
  ["bytes that leave the GPUs in the multicast broadcast, in units of S"] =
    "multicast broadcast 에서 GPU 들에서 나가는 byte (S 단위)",
  ["who makes the copies (the step text)"] = "copy 를 누가 만드는가 (step 본문)",
  [" - the copies are the switch's: count what leaves the GPUs"] = " — copy 는 switch 가 만든다: GPU 에서 나가는 것만 센다",
  [" - the root's store still crosses its own links once"] = " — root 의 store 도 자기 link 를 한 번은 지난다",
  ["the broadcast multicast beats by about n-1 times"] = "multicast 가 약 n-1 배 앞서는 broadcast",
  ["the table's last row: each broadcast's time at 256 MiB"] = "표의 마지막 행: 256 MiB 에서 각 broadcast 의 시간",
  [" - compare ring and multicast at 256 MiB: the chain already delivers at a link's rate to every GPU"] =
    " — 256 MiB 에서 ring 과 multicast 를 비교한다: chain 은 이미 모든 GPU 에 link 하나의 속도로 data 를 전달한다",
  ["at %s: naive %.0f us, ring %.0f us, multicast %.0f us - multicast saves the root's links %d copies and the other GPUs all their sending, not the ring's time"] =
    "%s 에서: naive %.0f us, ring %.0f us, multicast %.0f us — multicast 가 아끼는 것은 root link 의 copy %d 개와 나머지 GPU 의 송신 전부이지, ring 의 시간이 아니다",
}
