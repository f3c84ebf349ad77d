-- labs/11-pipeline/lang/ko.lua - the Korean of this lab's texts: the English
-- text exactly as lab.lua writes it -> its Korean, placeholders in the same
-- order (docs/lab-authoring.md, the language contract of issue 29).
return {
  ["your %s did not finish: rank %d: %s"] =
    "%s 가 끝나지 않았다: rank %d: %s",
  ["every rank finishes"] =
    "모든 rank 가 끝난다",
  ["log pane (5); %s"] =
    "log pane (5); %s",
  ["results pane (3): the flight records; %s"] =
    "results pane (3): flight record; %s",
  ["rank %d went on to step %d without sending rank %d what it waits for in step %d (recv at %s): a send is missing"] =
    "rank %d 는 step %d 로 넘어갔다, rank %d 가 step %d 에서 기다리는 것을 보내지 않은 채 (%s 의 recv): send 가 하나 빠졌다",
  ["rank %d in step %d, rank %d in step %d"] =
    "rank %d 는 step %d, rank %d 는 step %d",
  ["every receive meets a send"] =
    "모든 receive 가 send 를 만난다",
  ["the pipeline deadlocked: rank %d waits in recv from rank %d (%s) while rank %d waits in recv from rank %d (%s); each waits for the other to send first, and nothing was sent"] =
    "pipeline 이 deadlock 에 걸렸다: rank %d 는 rank %d 로부터의 recv (%s) 에서, rank %d 는 rank %d 로부터의 recv (%s) 에서 기다린다; 서로 상대가 먼저 보내기를 기다리고, 아무것도 보내지 않았다",
  ["rank %d: recv from %d; rank %d: recv from %d (flight recorder)"] =
    "rank %d: %d 로부터 recv; rank %d: %d 로부터 recv (flight recorder)",
  ["rank %d waits in recv from rank %d (%s), which never sent it anything: a receive here has no send on rank %d to meet"] =
    "rank %d 는 rank %d 로부터의 recv (%s) 에서 기다리지만, 그 rank 는 아무것도 보내지 않았다: 이 receive 가 만날 send 가 rank %d 에 없다",
  ["rank %d: recv from %d, never answered (flight recorder)"] =
    "rank %d: %d 로부터 recv, 응답 없음 (flight recorder)",
  ["rank %d: %s"] =
    "rank %d: %s",
  ["your %s did not finish: %s"] =
    "%s 가 끝나지 않았다: %s",
  ["flight records: each rank's last point-to-point calls"] =
    "flight record: 각 rank 의 마지막 point-to-point 호출",
  ["rank"] =
    "rank",
  ["op"] =
    "op",
  ["peer"] =
    "peer",
  ["state"] =
    "state",
  ["line"] =
    "line",
  ["flight recorder analysis: %s"] =
    "flight recorder 분석: %s",
  ["stage %d reported nothing"] =
    "stage %d 가 아무것도 보고하지 않았다",
  ["nothing"] =
    "없음",
  ["a row per stage"] =
    "stage 마다 한 행",
  ["log pane (5)"] =
    "log pane (5)",
  ["every stage's parameters equal the unpipelined model's after %d steps of %d micro-batches"] =
    "step %d 번 (step 마다 micro-batch %d 개) 뒤 모든 stage 의 parameter 가 pipeline 없는 model 과 같다",
  ["equal"] =
    "같음",
  ["stage %d: %d of its %d parameters differ, the worst %s in %d of %d elements (largest error %s)"] =
    "stage %d: parameter %d 개가 다르다 (전체 %d 개), 가장 큰 것은 %s 의 %d / %d element (최대 오차 %s)",
  ["after the first step stages 0-%d have gradients that differ from the unpipelined model's while the stages after them match: the gradient that flows back from stage %d is not the one stage %d computed. %s"] =
    "첫 step 뒤 stage 0-%d 의 gradient 가 pipeline 없는 model 과 다르고, 그 뒤의 stage 는 같다: stage %d 에서 거꾸로 흘러오는 gradient 가 stage %d 가 계산한 것이 아니다. %s",
  ["the pipelined model's parameters differ from the unpipelined model's after %d steps. %s"] =
    "step %d 번 뒤 pipeline model 의 parameter 가 pipeline 없는 model 과 다르다. %s",
  ["within rtol %s, atol %s"] =
    "rtol %s, atol %s 안",
  ["%s: the warm-up, the steady state and the cool-down"] =
    "%s: warm-up, steady state, cool-down",
  ["stage %d held all %d micro-batches' activations at once: every forward ran before the first backward, which is GPipe's memory, not 1F1B's"] =
    "stage %d 가 micro-batch %d 개 전부의 activation 을 한꺼번에 들고 있었다: 첫 backward 전에 forward 가 모두 돌았다. 이것은 1F1B 가 아니라 GPipe 의 memory 다",
  ["stage %d: %d in flight"] =
    "stage %d: %d 개 in flight",
  ["fewer in flight than GPipe"] =
    "GPipe 보다 적은 in flight",
  ["stage %d held %d micro-batches' activations at once: more micro-batches in flight than 1F1B needs; a stage only has to keep the stages after it busy until its first gradient comes back"] =
    "stage %d 가 micro-batch %d 개의 activation 을 한꺼번에 들고 있었다: 1F1B 에 필요한 것보다 in flight 가 많다; stage 는 첫 gradient 가 돌아올 때까지 뒤의 stage 들이 쉬지 않게 할 만큼만 가지고 있으면 된다",
  ["as few as 1F1B keeps"] =
    "1F1B 가 가지는 만큼만",
  ["stage %d ran %d forwards before its first backward: fewer warm-up forwards than the stages after it need to fill the pipeline, so they wait. Its order: %s"] =
    "stage %d 가 첫 backward 전에 forward 를 %d 번 돌렸다: 뒤의 stage 들이 pipeline 을 채우는 데 필요한 것보다 warm-up forward 가 적어서 그 stage 들이 기다린다. 순서: %s",
  ["stage %d's order is not 1F1B's (after the warm-up, one forward then one backward, oldest first; then the backwards left): %s"] =
    "stage %d 의 순서가 1F1B 가 아니다 (warm-up 뒤에는 forward 하나, 가장 오래된 micro-batch 의 backward 하나; 그 다음 남은 backward): %s",
  ["1F1B's order"] =
    "1F1B 의 순서",
  ["every stage runs 1F1B's order and keeps no more micro-batches than it needs"] =
    "모든 stage 가 1F1B 순서로 돌고 필요한 것보다 많은 micro-batch 를 들고 있지 않는다",
  ["ok"] =
    "ok",
  ["within rtol"] =
    "rtol 안",
  ["stage"] =
    "stage",
  ["modules"] =
    "module",
  ["order (step 1)"] =
    "순서 (step 1)",
  ["in flight (most)"] =
    "in flight (최대)",
  ["params differing"] =
    "다른 parameter",
  ["largest error"] =
    "최대 오차",
  ["your gpipe.lua on %d stages, %d micro-batches, against the unpipelined model"] =
    "당신의 gpipe.lua: stage %d 개, micro-batch %d 개, pipeline 없는 model 과 비교",
  ["each stage: its modules, its order, its activations in flight, against the unpipelined model"] =
    "각 stage: module, 순서, in flight activation, pipeline 없는 model 과 비교",
  ["your 1f1b.lua on %d stages, %d micro-batches"] =
    "당신의 1f1b.lua: stage %d 개, micro-batch %d 개",
  ["each stage under your 1F1B: its order, its activations in flight"] =
    "당신의 1F1B 아래 각 stage: 순서, in flight activation",
  ["your 1f1b.lua, timed at m = 1, 2, 4, 8 (a larger decoder%s)"] =
    "당신의 1f1b.lua 를 m = 1, 2, 4, 8 에서 잰다 (더 큰 decoder%s)",
  [", phantom: modelled time only"] =
    ", phantom: modelled time 만",
  ["error"] =
    "오류",
  ["the bubble of your 1F1B on 4 stages (from each stage's timing events on the %s%s; mgpu.whatif on %s)"] =
    "stage 4 개에서 당신의 1F1B 의 bubble (각 stage 의 timing event, %s%s; mgpu.whatif 는 %s)",
  ["pipeline ms"] =
    "pipeline ms",
  ["measured"] =
    "측정",
  ["stage 0 in flight"] =
    "stage 0 in flight",
  ["the measured bubble is within %.0f %% of (p-1)/(m+p-1) at every m (at most %.1f %% off)"] =
    "측정한 bubble 이 모든 m 에서 (p-1)/(m+p-1) 의 %.0f %% 안이다 (최대 %.1f %% 차이)",
  ["results pane (3)"] =
    "results pane (3)",
  ["at m = %d the measured bubble is %s, %.1f %% away from (p-1)/(m+p-1): the stages are not taking turns as 1F1B does"] =
    "m = %d 에서 측정한 bubble 은 %s, (p-1)/(m+p-1) 과 %.1f %% 차이: stage 들이 1F1B 처럼 번갈아 일하지 않는다",
  ["within %.0f %% of the formula"] =
    "공식의 %.0f %% 안",
  ["results pane (3); 1f1b.lua"] =
    "results pane (3); 1f1b.lua",
  ["mgpu.whatif gave no figure: %s"] =
    "mgpu.whatif 가 값을 주지 않았다: %s",
  ["a figure"] =
    "값 하나",
  ["the measured bubble is within %.0f %% of mgpu.whatif's 1F1B on %s at every m (at most %.1f %% off)"] =
    "측정한 bubble 이 모든 m 에서 mgpu.whatif 의 1F1B 의 %.0f %% 안이다 (%s 위; 최대 %.1f %% 차이)",
  ["at m = %d the measured bubble is %s and mgpu.whatif's is %s (%.1f %% apart)"] =
    "m = %d 에서 측정한 bubble 은 %s, mgpu.whatif 의 값은 %s (%.1f %% 차이)",
  ["within %.0f %% of mgpu.whatif"] =
    "mgpu.whatif 의 %.0f %% 안",
  ["step text: the bubble's formula; squared paper"] =
    "step 본문: bubble 공식; 모눈종이",
  ["the smallest m with a bubble of at most 10 %% on 4 stages"] =
    "stage 4 개에서 bubble 을 10 %% 이하로 만드는 가장 작은 m",
  ["the m that solves the inequality"] =
    "부등식을 푸는 m",
  ["GPipe's bubble against 1F1B's"] =
    "GPipe 의 bubble 과 1F1B 의 bubble",
  ["what your drawing shows"] =
    "당신의 그림이 보여 주는 것",
  ["your exchange.lua: 1F1B on %d stages, %d micro-batches (a hang ends after %d s)"] =
    "당신의 exchange.lua: stage %d 개, micro-batch %d 개의 1F1B (hang 은 %d 초 뒤 끝난다)",
  ["rank %d: the %s differs from the unsharded layers' (its tokens) in %s of %s elements, largest error %s"] =
    "rank %d: %s 가 unsharded layer 의 것 (자기 token) 과 %s / %s element 에서 다르다, 최대 오차 %s",
  ["the %s equals the unsharded layers' on every rank's tokens"] =
    "%s 가 모든 rank 의 token 에서 unsharded layer 의 것과 같다",
  ["output (2 layers)"] =
    "output (layer 2 개)",
  ["input gradient"] =
    "input gradient",
  ["every parameter gradient equals its slice of the unsharded layers'"] =
    "모든 parameter gradient 가 unsharded layer 의 해당 slice 와 같다",
  ["rank %d: the norm weight gradient %s is %s the whole sequence's: a norm saw only this rank's tokens"] =
    "rank %d: norm weight gradient %s 가 sequence 전체의 것의 %s 이다: norm 은 이 rank 의 token 만 보았다",
  ["the gradient over every token"] =
    "모든 token 에 대한 gradient",
  ["rank %d: %s of %s parameter gradients differ from their slice of the unsharded layers'; the worst, %s, is %s the right one (largest error %s)"] =
    "rank %d: parameter gradient %s 개 (전체 %s 개) 가 unsharded layer 의 slice 와 다르다; 가장 나쁜 %s 는 맞는 값의 %s 이다 (최대 오차 %s)",
  ["within the tolerance"] =
    "tolerance 안",
  ["every rank: %d all-gathers and %d reduce-scatters in forward and in backward, no all-reduce (the TP communicator's flight recorder)"] =
    "모든 rank: forward 와 backward 에서 각각 all-gather %d 번과 reduce-scatter %d 번, all-reduce 없음 (TP communicator 의 flight recorder)",
  ["%d + %d"] =
    "%d + %d",
  ["forward"] =
    "forward",
  ["backward"] =
    "backward",
  ["rank %d's TP communicator recorded in %s: %d all-reduces, %d all-gathers, %d reduce-scatters (%d calls) for %d layers; sequence parallelism replaces each all-reduce of a block by a reduce-scatter and an all-gather"] =
    "rank %d 의 TP communicator 가 %s 에서 기록한 것: all-reduce %d, all-gather %d, reduce-scatter %d (호출 %d 번), layer %d 개; sequence parallelism 은 block 의 all-reduce 하나를 reduce-scatter 하나와 all-gather 하나로 바꾼다",
  ["%d all-reduce, %d all-gather, %d reduce-scatter"] =
    "all-reduce %d, all-gather %d, reduce-scatter %d",
  ["no all-reduce; as many all-gathers as reduce-scatters, one pair per block"] =
    "all-reduce 없음; all-gather 와 reduce-scatter 가 같은 수, block 마다 한 쌍",
  ["outside the TP blocks a layer keeps %s with TP and %s with SP (allocator): %.2fx less"] =
    "TP block 바깥에서 layer 가 가지는 것: TP 로 %s, SP 로 %s (allocator): %.2f 배 적다",
  ["the TP group's split of the sequence"] =
    "TP group 이 sequence 를 나누는 만큼",
  ["outside the TP blocks a layer keeps %s with TP and %s with SP (allocator): %sx, where the sequence is split %d ways"] =
    "TP block 바깥에서 layer 가 가지는 것: TP 로 %s, SP 로 %s (allocator): %s 배, sequence 는 %d 조각으로 나뉜다",
  ["your sp.lua: 2 TP layers on 4 ranks, sequence split 4 ways, against TP and the unsharded layers"] =
    "당신의 sp.lua: rank 4 개에서 TP layer 2 개, sequence 4 조각, TP 와 unsharded layer 와 비교",
  ["each rank against the unsharded layers; its TP collectives (all-reduce / all-gather / reduce-scatter); what a forward keeps (allocator)"] =
    "각 rank 를 unsharded layer 와 비교; TP collective (all-reduce / all-gather / reduce-scatter); forward 가 가지는 것 (allocator)",
  ["output"] =
    "output",
  ["input grad"] =
    "input grad",
  ["grads differing"] =
    "다른 grad",
  ["fwd calls"] =
    "fwd 호출",
  ["bwd calls"] =
    "bwd 호출",
  ["outside, TP"] =
    "바깥, TP",
  ["outside, SP"] =
    "바깥, SP",
  ["all, TP"] =
    "전체, TP",
  ["all, SP"] =
    "전체, SP",
  ["the factor with TP = 8"] =
    "TP = 8 일 때의 배수",
  ["step text: what a rank holds outside the blocks"] =
    "step 본문: block 바깥에서 rank 가 가지는 것",
  ["what the split of the sequence gives"] =
    "sequence 를 나누는 것이 주는 값",
  ["Exercise: GPipe with send and recv"] =
    "Exercise: send 와 recv 로 GPipe",
  ["Exercise: 1F1B"] =
    "Exercise: 1F1B",
  ["The bubble, measured"] =
    "bubble 측정",
  ["Exercise: two stages that both receive first"] =
    "Exercise: 둘 다 먼저 받는 두 stage",
  ["Exercise: sequence parallelism"] =
    "Exercise: sequence parallelism",
  ["Pipeline and sequence parallelism"] =
    "Pipeline parallelism 과 sequence parallelism",
  ["GPipe and 1F1B by hand with send/recv, the bubble measured, a stage deadlock, Megatron's sequence parallelism"] =
    "send/recv 로 직접 짜는 GPipe 와 1F1B, bubble 측정, stage 사이 deadlock, Megatron 의 sequence parallelism",
  ["sim (every preset: 4 ranks share the GPUs there are) and cuda (4 ranks; fewer GPUs: emulated nodes)"] =
    "sim (모든 preset: rank 4 개가 있는 GPU 를 나눠 쓴다) 과 cuda (rank 4 개; GPU 가 모자라면 emulated node)",
  ["With p = 4 stages, what is the smallest number of micro-batches m for which (p-1)/(m+p-1) is at most 10 %?"] =
    "stage 가 p = 4 개일 때 (p-1)/(m+p-1) 을 10 % 이하로 만드는 가장 작은 micro-batch 수 m 은?",
  ["For the same p and m, is GPipe's bubble larger, smaller or the same as 1F1B's? (larger/smaller/same)"] =
    "같은 p 와 m 에서 GPipe 의 bubble 은 1F1B 보다 큰가, 작은가, 같은가? (larger/smaller/same)",
  ["With a TP group of 8 instead of 4, by what factor would sequence parallelism shrink the activations kept outside the TP blocks?"] =
    "TP group 이 4 가 아니라 8 이면 sequence parallelism 은 TP block 바깥에 남기는 activation 을 몇 배로 줄이는가?",
  ["A stage that is not the first has nothing to work on until its neighbour's activation arrives: st:buffer() gives a tensor to receive it into."] =
    "첫 stage 가 아니면 이웃의 activation 이 도착할 때까지 할 일이 없다: st:buffer() 가 받을 tensor 를 준다.",
  ["What goes forward to st.next on the way out comes back from st.next as a gradient on the way back; the first and the last stage each have one neighbour only."] =
    "가는 길에 st.next 로 보낸 것은 돌아오는 길에 st.next 에서 gradient 로 돌아온다; 첫 stage 와 마지막 stage 는 이웃이 하나뿐이다.",
  ["Forward: receive from st.prev (unless first), forward, send to st.next (unless last). Backward mirrors it with st.next and st.prev swapped. Each micro-batch needs its own receive buffer."] =
    "forward: st.prev 에서 받고 (첫 stage 가 아니면), forward, st.next 로 보낸다 (마지막이 아니면). backward 는 st.next 와 st.prev 를 바꾼 거울상이다. micro-batch 마다 자기 receive buffer 가 필요하다.",
  ["The last stage can run a micro-batch's backward the moment its forward is done. How many forwards must the stage before it have sent by then?"] =
    "마지막 stage 는 micro-batch 의 forward 가 끝나는 즉시 그 backward 를 돌릴 수 있다. 그때까지 그 앞 stage 는 forward 를 몇 번 보냈어야 하는가?",
  ["A stage's warm-up is one forward for each stage after it, but never more than the micro-batches there are. Then each forward is followed by the backward of the oldest micro-batch still in flight."] =
    "stage 의 warm-up 은 뒤에 있는 stage 하나마다 forward 하나지만, micro-batch 수보다 많을 수는 없다. 그 다음에는 forward 하나 뒤에 아직 in flight 인 가장 오래된 micro-batch 의 backward 가 온다.",
  ["Three loops: the warm-up forwards; the steady state, forward i then backward i - warm; the cool-down, the backwards of the last warm micro-batches."] =
    "loop 세 개: warm-up forward; steady state 는 forward i 다음 backward i - warm; cool-down 은 남은 warm micro-batch 들의 backward.",
  ["Solve (p-1)/(m+p-1) <= 0.1 for m, with p = 4."] =
    "p = 4 로 (p-1)/(m+p-1) <= 0.1 을 m 에 대해 풀어라.",
  ["Draw both schedules for p = 2, m = 2 on squared paper: where does each stage idle?"] =
    "p = 2, m = 2 로 두 schedule 을 모눈종이에 그려 보라: 각 stage 는 어디서 노는가?",
  ["Run it as it is and read the flight records: which call is each stuck rank in, and from whom does it wait?"] =
    "그대로 돌리고 flight record 를 읽어라: 멈춘 rank 는 각각 어느 호출에 있고, 누구를 기다리는가?",
  ["send_forward_recv_backward on stage s talks to send_backward_recv_forward on stage s+1 at the same moment."] =
    "stage s 의 send_forward_recv_backward 는 같은 순간 stage s+1 의 send_backward_recv_forward 와 통신한다.",
  ["Put each exchange's send and receive in one mgpu.group(function() ... end): NCCL starts a group's calls together, as Megatron's batch_isend_irecv does."] =
    "각 교환의 send 와 receive 를 mgpu.group(function() ... end) 하나에 넣어라: NCCL 은 group 의 호출을 함께 시작한다, Megatron 의 batch_isend_irecv 처럼.",
  ["Outside a block a rank has a quarter of the tokens; the column-parallel layers need all of them, and the row-parallel layer's partial sums must be added up for each token."] =
    "block 바깥에서 rank 는 token 의 4 분의 1 을 가진다; column-parallel layer 는 token 전부가 필요하고, row-parallel layer 의 partial sum 은 token 마다 더해져야 한다.",
  ["F gathers the tokens forward; its backward must both add up the ranks' shares of dL/dx (as lab 6's f did) and hand each rank its own tokens. G is F mirrored."] =
    "F 는 forward 에서 token 을 모은다; backward 는 rank 들의 dL/dx 몫을 더하고 (lab 6 의 f 처럼) 각 rank 에게 자기 token 을 돌려줘야 한다. G 는 F 의 거울상이다.",
  ["F: all_gather forward, reduce_scatter (sum) backward; G: the reverse. The norms are not sharded by TP but see only this rank's tokens: their gradients are partial sums over the group."] =
    "F: forward 는 all_gather, backward 는 reduce_scatter (sum); G: 그 반대. norm 은 TP 로 나뉘지 않지만 이 rank 의 token 만 본다: 그 gradient 는 group 에 걸친 partial sum 이다.",
  ["sp.lua: F, G and sync_grads"] =
    "sp.lua: F, G, sync_grads",
  ["sp.lua: F:forward and G:forward"] =
    "sp.lua: F:forward 와 G:forward",
  ["sp.lua: F:backward and G:backward"] =
    "sp.lua: F:backward 와 G:backward",
  ["sp.lua: F and G"] =
    "sp.lua: F 와 G",
  ["the timing run reported %d of %d bubble figures: 1f1b.lua must hand mgpu.args on to pipe.run, which chooses the run"] =
    "timing run 이 bubble 값 %d 개를 보고했다 (%d 개 중): 1f1b.lua 는 mgpu.args 를 pipe.run 에 넘겨야 한다, run 을 고르는 것은 pipe.run 이다",
}
