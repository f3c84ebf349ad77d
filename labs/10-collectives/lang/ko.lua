-- labs/10-collectives/lang/ko.lua - the Korean of this lab's texts: the English
-- text exactly as lab.lua writes it -> its Korean, placeholders in the same
-- order (docs/lab-authoring.md, the language contract of issue 29).
return {
  -- lab
  ["Collectives from point to point"] = "point-to-point 로 만드는 collective",
  ["What NCCL does for us: ring reduce-scatter, all-gather and all-reduce from send/recv, timed against NCCL; busbw for n ranks; the send-first deadlock; all-to-all with uneven splits"] =
    "NCCL 이 대신 해 주는 일: send/recv 로 만든 ring reduce-scatter, all-gather, all-reduce 를 NCCL 과 시간으로 비교; " ..
    "rank n 개의 busbw; 모두 send 부터 하는 deadlock; 고르지 않은 split 의 all-to-all",
  ["cuda (N GPUs, or the ranks as emulated nodes on one GPU) and sim (any preset)"] =
    "cuda (GPU N 개, 또는 GPU 하나 위의 emulated node 로 된 rank) 와 sim (모든 preset)",

  -- step titles
  ["Exercise 1: ring reduce-scatter from send and recv"] = "연습 1: send 와 recv 로 만드는 ring reduce-scatter",
  ["Exercise 2: ring all-gather, and all-reduce from the two"] = "연습 2: ring all-gather, 그리고 둘로 만드는 all-reduce",
  ["Your ring against NCCL's: busbw at 256 MiB"] = "내 ring 대 NCCL 의 ring: 256 MiB 에서의 busbw",
  ["busbw for n ranks: what your ring sends"] = "rank n 개의 busbw: 내 ring 이 보내는 양",
  ["Exercise 3: recursive doubling, the small-message all-reduce"] = "연습 3: recursive doubling, 작은 메시지용 all-reduce",
  ["Ring or doubling: the latency crossover"] = "ring 이냐 doubling 이냐: latency crossover",
  ["Exercise 4: every rank sends first - the deadlock, and mgpu.group"] = "연습 4: 모든 rank 가 send 부터 - deadlock 과 mgpu.group",
  ["Exercise 5: all-to-all with uneven splits (MoE's token exchange)"] = "연습 5: 고르지 않은 split 의 all-to-all (MoE 의 token 교환)",

  -- hints
  ["Draw 3 ranks and 3 chunks. In each step every rank sends one chunk to the right and adds the one from the left into one of its own chunks."] =
    "rank 3 개와 chunk 3 개를 그려 본다. 단계마다 모든 rank 는 chunk 하나를 오른쪽으로 보내고, 왼쪽에서 온 chunk 를 자기 chunk 하나에 더한다.",
  ["After n-1 steps rank r must own the full sum of chunks[r]. Work backwards: which chunk must rank r pass on in the last step, and which in the first?"] =
    "n-1 단계 뒤 rank r 은 chunks[r] 의 전체 합을 가져야 한다. 거꾸로 따져 본다: 마지막 단계에서 rank r 이 넘겨야 하는 chunk 는 무엇이고, 첫 단계에서는 무엇인가?",
  ["The chunk rank r receives in a step is the one it sends in the next step, plus its own share."] =
    "rank r 이 한 단계에서 받은 chunk 는 자기 몫을 더해 다음 단계에서 보내는 chunk 이다.",
  ["Receive into scratch:flat(0, len) with len the length of the chunk it adds to: the chunks are not all the same length."] =
    "scratch:flat(0, len) 으로 받는다. len 은 더해 넣을 chunk 의 길이다: chunk 의 길이가 모두 같지는 않다.",
  ["All-gather moves the same way as reduce-scatter, but it copies instead of adding."] =
    "all-gather 는 reduce-scatter 와 같은 방향으로 움직이지만, 더하는 대신 복사한다.",
  ["Rank r starts with only chunks[r]; in step s it passes on the chunk it received in step s-1."] =
    "rank r 은 chunks[r] 하나만 갖고 시작한다; 단계 s 에서는 단계 s-1 에서 받은 chunk 를 넘긴다.",
  ["All-reduce is the reduce-scatter you wrote, then the all-gather."] =
    "all-reduce 는 직접 쓴 reduce-scatter 다음에 all-gather 이다.",
  ["Where does your ring spend time that NCCL's does not? Count the steps, and look at what happens between two sends."] =
    "내 ring 은 NCCL 의 ring 이 쓰지 않는 시간을 어디에 쓰는가? 단계 수를 세고, 두 send 사이에 무슨 일이 있는지 본다.",
  ["NCCL adds inside the same kernel that moves the data; your ring adds after the receive, in a kernel of its own."] =
    "NCCL 은 데이터를 옮기는 kernel 안에서 더한다; 내 ring 은 receive 다음에 따로 kernel 을 돌려 더한다.",
  ["Count the sends of your all_reduce on one rank, and how long each is compared with the whole buffer."] =
    "rank 하나에서 내 all_reduce 의 send 수를 세고, 각 send 가 buffer 전체에 비해 얼마나 긴지 본다.",
  ["Reduce-scatter and all-gather each take n-1 steps of one chunk."] =
    "reduce-scatter 와 all-gather 는 각각 chunk 하나씩 n-1 단계를 거친다.",
  ["With 4 ranks: step 0 pairs 0-1 and 2-3, step 1 pairs 0-2 and 1-3. After step k a rank holds the sum of a group of 2^(k+1) ranks."] =
    "rank 4 개라면: 단계 0 은 0-1, 2-3 을 짝짓고, 단계 1 은 0-2, 1-3 을 짝짓는다. 단계 k 뒤 rank 는 rank 2^(k+1) 개 묶음의 합을 갖는다.",
  ["The partner in step k is r xor 2^k (Lua: r ~ d). Both partners send and receive: one group."] =
    "단계 k 의 짝은 r xor 2^k 이다 (Lua: r ~ d). 짝 둘 다 send 와 receive 를 한다: group 하나.",
  ["With 3, 5, 6 or 7 ranks the ranks past the largest power of two p must fold in before the doubling and get the result after it; they take no part in between."] =
    "rank 가 3, 5, 6, 7 개이면 가장 큰 2 의 거듭제곱 p 를 넘는 rank 는 doubling 전에 합쳐 넣고, 끝난 뒤 결과를 받는다; 그 사이에는 끼지 않는다.",
  ["Each algorithm's time is a latency plus bytes over a bandwidth: t = a + S / B. The smallest size gives a, the largest gives B."] =
    "각 algorithm 의 시간은 latency 더하기 byte 나누기 bandwidth 이다: t = a + S / B. 가장 작은 크기가 a 를, 가장 큰 크기가 B 를 준다.",
  ["The crossover is the S where the two lines meet: a_ring + S / B_ring = a_dbl + S / B_dbl."] =
    "crossover 는 두 직선이 만나는 S 이다: a_ring + S / B_ring = a_dbl + S / B_dbl.",
  ["The flight table: what has every rank entered, and what has none of them reached?"] =
    "flight table: 모든 rank 가 들어간 호출은 무엇이고, 어느 rank 도 닿지 못한 호출은 무엇인가?",
  ["A large send completes only when the peer receives. Who receives, while everyone sends?"] =
    "큰 send 는 상대가 받아야 끝난다. 모두가 send 하는 동안 누가 받는가?",
  ["NCCL's answer is a group: calls inside mgpu.group(function() ... end) start together at its end."] =
    "NCCL 의 답은 group 이다: mgpu.group(function() ... end) 안의 호출은 group 이 끝날 때 함께 시작한다.",
  ["A receiver cannot know how many tokens will come from each rank unless someone tells it. What collective tells everyone one number from everyone?"] =
    "누가 알려 주지 않으면 받는 쪽은 각 rank 에서 token 이 몇 개 올지 알 수 없다. 모두에게서 모두에게 숫자 하나씩을 전하는 collective 는 무엇인가?",
  ["First exchange the counts: an i32 tensor of n counts through comm:alltoall. Then size the receives from what came back."] =
    "먼저 개수를 교환한다: 개수 n 개의 i32 tensor 를 comm:alltoall 로. 그 다음 돌아온 값으로 receive 의 크기를 정한다.",
  ["The sends and receives of the exchange go in one mgpu.group, or they wait for each other."] =
    "교환의 send 와 receive 는 mgpu.group 하나에 넣는다. 그러지 않으면 서로를 기다린다.",

  -- questions
  ["Before you look: will your ring's busbw be above or below NCCL's own ring (above/below)?"] =
    "보기 전에: 내 ring 의 busbw 는 NCCL 의 ring 보다 높을까 낮을까 (above/below)?",
  ["Each rank's bytes sent by the ring all-reduce, as a multiple of the buffer size S, for n = 3?"] =
    "ring all-reduce 에서 rank 하나가 보내는 byte 는 buffer 크기 S 의 몇 배인가, n = 3 일 때?",
  ["The same for n = 5?"] = "n = 5 일 때는?",
  ["From the two rows shown: above which message size is your ring faster than recursive doubling on 8 ranks (e.g. 512K, 3M)?"] =
    "보이는 두 행으로: rank 8 개에서 메시지 크기가 얼마를 넘으면 내 ring 이 recursive doubling 보다 빠른가 (예: 512K, 3M)?",
  ["In the original exchange.lua with a large message, which call is every rank stuck in (send/recv)?"] =
    "원래 exchange.lua 에 큰 메시지를 주면 모든 rank 가 어느 호출에 멈춰 있는가 (send/recv)?",

  -- run time: judging the chunks
  ["still -1: nothing was received into it"] = "아직 -1: 아무것도 받지 않았다",
  ["a value that is no sum of the ranks' data (%s)"] = "rank 들의 데이터 합이 아닌 값 (%s)",
  ["the sum of %d of %d ranks (ranks %s)"] = "rank %d 개의 합 (%d 개 중; rank %s)",
  ["log pane (5) and your ring.lua"] = "log pane (5) 와 내 ring.lua",
  ["rank %d: %s"] = "rank %d: %s",
  ["%s did not finish: %s"] = "%s: 끝나지 않았다 - %s",
  ["every rank finishes"] = "모든 rank 가 끝난다",
  ["your %s on %d ranks"] = "내 %s (rank %d 개)",
  ["%s called %s: build it from comm:send and comm:recv only"] = "%s 에서 %s 호출: comm:send 와 comm:recv 로만 만든다",
  ["%s in the flight record of your communicator"] = "내 communicator 의 flight record 에 %s",
  ["send and recv only"] = "send 와 recv 뿐",
  ["%s sent nothing on rank %d: the ring has not been written yet"] = "%s: rank %d 가 아무것도 보내지 않았다: ring 을 아직 쓰지 않았다",
  ["your %s sent nothing on %s ranks: the ring has not been written yet"] = "작성한 %s 가 %s rank 모두에서 아무것도 보내지 않았다: ring 을 아직 쓰지 않았다",
  ["no send in the flight record"] = "flight record 에 send 가 없다",
  ["a send in every ring step"] = "ring 의 단계마다 send",
  ["%s: on rank %d, chunks[%d] (elements %d-%d) is not %s; it holds %s"] =
    "%s: rank %d 에서 chunks[%d] (element %d-%d) - 원한 것은 %s, 들어 있는 것은 %s",
  ["rank %d's reduced chunk"] = "rank %d 의 reduce 된 chunk",
  ["the sum of all %d ranks"] = "rank %d 개 모두의 합",
  ["%d of %d elements differ from comm:all_reduce's (exact data: bit for bit)"] =
    "element %d 개 (%d 개 중) 가 comm:all_reduce 의 것과 다르다 (exact data: bit 단위 비교)",
  ["every element equal to comm:all_reduce's, bit for bit"] = "모든 element 가 comm:all_reduce 의 것과 bit 단위로 같다",
  ["%s, random data: on rank %d, chunks[%d] differs from comm:all_reduce by more than another summation order explains"] =
    "%s, random data: rank %d 에서 chunks[%d] 가 comm:all_reduce 와, 덧셈 순서가 달라서 생기는 차이보다 더 다르다",
  ["%d elements off, the largest by %.3g (first at element %d of the chunk)"] =
    "element %d 개가 어긋남, 가장 큰 차이 %.3g (처음은 chunk 의 element %d)",
  ["within rtol 1e-5, atol %.0e"] = "rtol 1e-5, atol %.0e 이내",
  ["%s: every rank's chunks right - exact data bit for bit; random data within rounding (%d elements summed in another order than NCCL's)"] =
    "%s: 모든 rank 의 chunk 가 맞다 - exact data 는 bit 단위로; random data 는 rounding 이내 (element %d 개가 NCCL 과 다른 순서로 더해졌다)",
  ["right on every rank"] = "모든 rank 에서 맞다",
  ["%s on %d ranks, %d f32"] = "%s, rank %d 개, f32 %d 개",
  ["your %s on %d ranks, %d f32 (large messages)"] = "내 %s (rank %d 개, f32 %d 개: 큰 메시지)",
  ["%s: %s is not right"] = "%s: %s 는 맞지 않다",

  -- timing
  ["your all_reduce on %d ranks sent its chunks"] = "rank %d 개에서 내 all_reduce 가 chunk 를 보냈다",
  ["sends"] = "send 있음",
  ["no send"] = "send 없음",
  ["your all_reduce on %d ranks sent nothing: there is no ring to time yet"] =
    "rank %d 개에서 내 all_reduce 가 아무것도 보내지 않았다: 아직 시간을 잴 ring 이 없다",
  ["%d sends"] = "send %d 번",
  ["the sends of your ring"] = "내 ring 의 send",
  ["your ring and NCCL's default (NVLS) on 8 ranks, 256 MiB"] = "내 ring 과 NCCL 의 기본 (NVLS), rank 8 개, 256 MiB",
  ["NCCL's ring (NCCL_ALGO=Ring)"] = "NCCL 의 ring (NCCL_ALGO=Ring)",
  ["256 MiB f32 on 8 ranks, SIMULATED %s (modelled clock)"] = "rank 8 개의 256 MiB f32, SIMULATED %s (modelled clock)",
  ["collective"] = "collective",
  ["time (ms)"] = "시간 (ms)",
  ["busbw (GB/s)"] = "busbw (GB/s)",
  ["all-gather: your ring"] = "all-gather: 내 ring",
  ["all-gather: NCCL's ring"] = "all-gather: NCCL 의 ring",
  ["all-reduce: your ring"] = "all-reduce: 내 ring",
  ["all-reduce: NCCL's ring (NCCL_ALGO=Ring)"] = "all-reduce: NCCL 의 ring (NCCL_ALGO=Ring)",
  ["all-reduce: NCCL's own choice (NVLS)"] = "all-reduce: NCCL 이 고른 것 (NVLS)",
  ["the timing run of your all_reduce"] = "내 all_reduce 의 시간 측정",
  ["your all-gather's busbw against NCCL's, 256 MiB, 8 ranks"] = "내 all-gather 의 busbw 대 NCCL 의 것, 256 MiB, rank 8 개",
  ["results pane (3)"] = "results pane (3)",
  ["your ring's busbw against NCCL's ring (NCCL_ALGO=Ring), 256 MiB, 8 ranks"] =
    "내 ring 의 busbw 대 NCCL 의 ring (NCCL_ALGO=Ring), 256 MiB, rank 8 개",
  ["your prediction"] = "내 예측",
  ["what the table shows, and why (the step text)"] = "표가 보여 주는 것과 그 이유 (단계 본문)",

  -- busbw
  ["your ring on %d ranks"] = "rank %d 개에서 내 ring",
  ["all-reduce of 256 MiB f32, SIMULATED %s: algbw = S / time"] = "256 MiB f32 의 all-reduce, SIMULATED %s: algbw = S / 시간",
  ["ranks"] = "rank",
  ["your ring (ms)"] = "내 ring (ms)",
  ["your algbw (GB/s)"] = "내 algbw (GB/s)",
  ["NCCL ring algbw (GB/s)"] = "NCCL ring algbw (GB/s)",
  ["bytes sent per rank / S for n = %d"] = "n = %d 일 때 rank 당 보낸 byte / S",
  ["what your ring's sends add up to, over the buffer"] = "내 ring 의 send 를 모두 더한 양을 buffer 로 나눈 값",
  ["your ring.lua"] = "내 ring.lua",

  -- doubling and the crossover
  ["your ring, 8 ranks, 32 B to 128 MiB"] = "내 ring, rank 8 개, 32 B 에서 128 MiB 까지",
  ["your recursive doubling, 8 ranks, 32 B to 128 MiB"] = "내 recursive doubling, rank 8 개, 32 B 에서 128 MiB 까지",
  ["all-reduce on 8 ranks, SIMULATED %s: modelled us"] = "rank 8 개의 all-reduce, SIMULATED %s: modelled us",
  ["all-reduce on 8 ranks, SIMULATED %s: modelled us (the smallest and the largest size: the sweep shows when you have answered)"] =
    "rank 8 개의 all-reduce, SIMULATED %s: modelled us (가장 작은 크기와 가장 큰 크기: 답하면 sweep 전체가 보인다)",
  ["size"] = "크기",
  ["your ring (us)"] = "내 ring (us)",
  ["your doubling (us)"] = "내 doubling (us)",
  ["the sweep of your ring.all_reduce"] = "내 ring.all_reduce 의 sweep",
  ["the sweep of your ring.doubling"] = "내 ring.doubling 의 sweep",
  ["your doubling sent its messages"] = "내 doubling 이 메시지를 보냈다",
  ["your ring.doubling sent nothing: there is nothing to time yet"] = "내 ring.doubling 이 아무것도 보내지 않았다: 아직 시간을 잴 것이 없다",
  ["the sends of your doubling"] = "내 doubling 의 send",
  ["your ring.lua: ring.doubling"] = "내 ring.lua: ring.doubling",
  ["your ring and your doubling do not cross between 32 B and 128 MiB"] = "내 ring 과 doubling 이 32 B 와 128 MiB 사이에서 만나지 않는다",
  ["no crossover"] = "crossover 없음",
  ["doubling faster at small sizes, ring at large"] = "작은 크기에서는 doubling 이, 큰 크기에서는 ring 이 빠르다",
  ["the crossover: %q is not a size (write 512K, 3M or bytes)"] = "crossover: %q 는 크기가 아니다 (512K, 3M 또는 byte 수로 쓴다)",
  ["a size"] = "크기",
  ["question crossover"] = "질문 crossover",
  ["your crossover prediction"] = "내 crossover 예측",
  ["within a factor of 2 of where the measured lines cross"] = "측정한 두 직선이 만나는 곳의 2 배 안",
  ["results pane (3): t = latency + size / bandwidth for each"] = "results pane (3): 각각 t = latency + 크기 / bandwidth",

  -- the deadlock
  ["your exchange.lua, %d ranks, %d elements"] = "내 exchange.lua, rank %d 개, element %d 개",
  ["your exchange.lua"] = "내 exchange.lua",
  ["the original exchange.lua (for the flight records)"] = "원래 exchange.lua (flight record 를 보려고)",
  ["the original exchange.lua"] = "원래 exchange.lua",
  ["flight records of %s, 64 MiB a rank"] = "%s 의 flight record, rank 마다 64 MiB",
  ["rank %d"] = "rank %d",
  ["%s %s f32 @ %s (%s)"] = "%s %s f32 @ %s (%s)",
  ["flight recorder analysis: %s"] = "flight recorder 분석: %s",
  ["exchange.lua on %d ranks, %d f32 a message"] = "rank %d 개의 exchange.lua, 메시지마다 f32 %d 개",
  ["results pane (3): the flight table, and your exchange.lua"] = "results pane (3): flight table, 그리고 내 exchange.lua",
  ["rank %d received %s, not rank %d's message"] = "rank %d 가 받은 것은 %s 이고, rank %d 의 메시지가 아니다",
  ["rank %s's data (damaged)"] = "rank %s 의 데이터 (손상됨)",
  ["rank %s's data"] = "rank %s 의 데이터",
  ["nothing"] = "아무것도 없음",
  ["%s: %s"] = "%s: %s",
  ["%s: every rank got its left neighbour's message"] = "%s: 모든 rank 가 왼쪽 이웃의 메시지를 받았다",
  ["right"] = "맞다",
  ["every rank holds the message of the rank before it"] = "모든 rank 가 앞 rank 의 메시지를 갖는다",
  ["log pane (5) and your exchange.lua"] = "log pane (5) 와 내 exchange.lua",
  ["the call every rank is stuck in"] = "모든 rank 가 멈춰 있는 호출",
  ["the last entry of each rank's column"] = "각 rank 열의 마지막 항목",
  ["results pane (3): the flight table"] = "results pane (3): flight table",

  -- all-to-all
  ["your all-to-all on %d ranks"] = "rank %d 개에서 내 all-to-all",
  ["log pane (5) and your alltoallv.lua"] = "log pane (5) 와 내 alltoallv.lua",
  ["rank %d reported nothing"] = "rank %d 가 아무것도 보고하지 않았다",
  ["rank %d: the tokens from rank %d are wrong (%s)"] = "rank %d: rank %d 에서 온 token 이 틀렸다 (%s)",
  ["rank %d checked %d pieces of %d"] = "rank %d 가 조각 %d 개를 확인했다 (%d 개 중)",
  ["%s: every rank got every rank's tokens for it"] = "%s: 모든 rank 가 모든 rank 에게서 자기 몫의 token 을 받았다",
  ["rank r holds, from each rank j, exactly the tokens j routed to r"] = "rank r 은 각 rank j 에게서, j 가 r 로 보낸 token 을 정확히 갖는다",
}
