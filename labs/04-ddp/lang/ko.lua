-- labs/04-ddp/lang/ko.lua - the Korean of this lab's texts: the English text
-- exactly as lab.lua writes it -> its Korean, placeholders in the same order
-- (docs/lab-authoring.md, the language contract of issue 29).
return {
  -- the lab
  ["DDP: what PyTorch does for us, one level down"] = "DDP: PyTorch 가 우리 대신 하는 일을 한 단계 아래에서",
  ["A ResNet on one rank; data parallel, naively; your own gradient reducer with buckets and backward hooks; the bucket size swept; the run's NCCL trace"] =
    "rank 하나 위의 ResNet; 순진한 data parallel; bucket 과 backward hook 으로 직접 쓰는 gradient reducer; bucket 크기 sweep; run 의 NCCL trace",
  ["sim (any preset) and cuda (N GPUs, or ranks as emulated nodes on one GPU)"] =
    "sim (어느 preset 이든) 과 cuda (GPU N 개, 또는 GPU 하나 위의 emulated node 로 도는 rank)",

  -- shared by the steps
  ["%s did not finish: %s"] = "%s: 끝나지 않았다 - %s",
  ["every rank finishes"] = "모든 rank 가 끝난다",
  ["log pane (5)"] = "log pane (5)",
  ["rank 0 reported no parameters"] = "rank 0 이 parameter 를 보고하지 않았다",
  ["nothing"] = "없음",
  ["checksums"] = "checksum",
  ["rank %d reported no parameters"] = "rank %d 에서 parameter 보고가 없다",
  ["the ranks' parameters differ after %d steps: %s on rank %d is not rank 0's (each rank trained on its own shard only?)"] =
    "%d step 뒤 rank 들의 parameter 가 다르다: parameter %s - rank %d 의 값이 rank 0 의 것과 다르다 (각 rank 가 자기 shard 로만 학습했나?)",
  ["rank %d: %s, rank 0: %s"] = "rank %d: %s, rank 0: %s",
  ["the same bits on every rank"] = "모든 rank 에서 같은 bit",
  ["all %d ranks hold the same parameters after %d steps (checksum %s)"] =
    "rank %d 개 모두 %d step 뒤 같은 parameter 를 갖는다 (checksum %s)",
  ["press a to answer"] = "a 를 눌러 답하라",
  ["rank %d"] = "rank %d",
  ["rank"] = "rank",
  ["step"] = "step",
  ["loss"] = "loss",
  ["step time (ms)"] = "step time (ms)",
  ["images/s"] = "images/s",
  ["parameters"] = "parameter",
  ["naive"] = "순진한 교환",
  ["one all-reduce of every gradient (ms)"] = "모든 gradient 의 all-reduce 한 번 (ms)",
  ["all-reduce after backward (ms)"] = "backward 뒤의 all-reduce (ms)",
  ["results pane (3), table 'parameter checksums'"] = "results pane (3), 'parameter checksum' 표",

  -- step 1: one rank
  ["One rank trains a ResNet"] = "rank 하나가 ResNet 을 학습한다",
  ["ResNet-8 on one rank, %d steps of %d images"] = "rank 하나 위의 ResNet-8, %d step, 이미지 %d 장씩",
  ["loss, one rank, global batch %d"] = "loss, rank 하나, global batch %d",
  ["time"] = "시간",
  ["%d tensors, %.2f MiB of f32"] = "tensor %d 개, f32 %.2f MiB",
  ["the one-rank run"] = "rank 하나짜리 run",
  ["the loss fell from %.3f (mean of the first 4 steps) to %.3f (the last 4)"] =
    "loss 가 %.3f (처음 4 step 의 평균) 에서 %.3f (마지막 4 step) 로 내려갔다",
  ["below %s"] = "%s 보다 작게",
  ["results pane (3), table 'loss'"] = "results pane (3), 'loss' 표",

  -- step 2: naive
  ["Data parallel, naively: average every gradient after backward"] =
    "data parallel, 순진하게: backward 뒤에 모든 gradient 를 평균한다",
  ["naive data parallel on %d ranks"] = "rank %d 개 위의 순진한 data parallel",
  ["one rank on the global batch (the reference)"] = "global batch 전체를 도는 rank 하나 (기준)",
  ["loss: one rank on %d images vs %d ranks on %d each"] = "loss: 이미지 %d 장의 rank 하나 vs rank %d 개에 %d 장씩",
  ["one rank"] = "rank 하나",
  ["%d ranks, naive"] = "rank %d 개, 순진한 교환",
  ["parameter checksums after %d steps"] = "%d step 뒤의 parameter checksum",
  ["checksum"] = "checksum",
  ["the naive data-parallel run"] = "순진한 data-parallel run",
  ["loss curves, %d ranks vs one rank on the global batch: largest difference %.3f at step %d (tolerance 0.15: batch norm normalises each rank's shard by its own statistics)"] =
    "loss curve, rank %d 개 vs global batch 위의 rank 하나: 가장 큰 차이 %.3f, step %d (허용 오차 0.15: batch norm 은 각 rank 의 shard 를 그 shard 자신의 통계로 normalise 한다)",

  -- step 3: the reducer
  ["Exercise: write DDP's reducer"] = "실습: DDP 의 reducer 를 직접 쓴다",
  ["Build the buckets in Reducer.new: walk params from the last to the first, start a new bucket when the next gradient would not fit, and remember each parameter's bucket and offset."] =
    "Reducer.new 에서 bucket 을 만든다: params 를 마지막부터 처음까지 훑으며, 다음 gradient 가 들어가지 않으면 새 bucket 을 시작하고, parameter 마다 자기 bucket 과 offset 을 기억해 둔다.",
  ["In ready(p): copy the gradient into its place in its bucket and count the bucket down. When its last gradient is in, the bucket's all-reduce goes on the communicator's stream - but the copies ran on the default stream, and another stream does not see their end by itself."] =
    "ready(p) 에서: gradient 를 자기 bucket 의 자기 자리로 copy 하고 bucket 의 count 를 줄인다. 마지막 gradient 가 들어오면 bucket 의 all-reduce 는 communicator 의 stream 에 올라간다 - 그런데 copy 는 default stream 에서 돌았고, 다른 stream 은 그 끝을 스스로 보지 못한다.",
  ["In wait(): the gradients come back from the buckets on the default stream, which must not read a bucket before its all-reduce is done - the same kind of ordering as in ready(), the other way round. And the next step needs the buckets ready to count down again."] =
    "wait() 에서: gradient 는 default stream 에서 bucket 으로부터 돌아오는데, default stream 은 all-reduce 가 끝나기 전에 bucket 을 읽으면 안 된다 - ready() 와 같은 종류의 순서를 반대 방향으로. 그리고 다음 step 은 bucket 이 다시 count 를 줄일 준비가 되어 있기를 필요로 한다.",
  ["your reducer, ResNet-8 on %d ranks"] = "내 reducer, rank %d 개 위의 ResNet-8",
  ["the naive exchange, same run"] = "순진한 교환, 같은 run",
  ["your reducer, the wide ResNet (timing), 25 MiB buckets"] = "내 reducer, wide ResNet (timing), 25 MiB bucket",
  ["the naive exchange, the wide ResNet"] = "순진한 교환, wide ResNet",
  ["the wide ResNet (ResNet-32, width 96), %d ranks"] = "wide ResNet (ResNet-32, width 96), rank %d 개",
  ["your reducer (25 MiB)"] = "내 reducer (25 MiB)",
  ["all-reduce left after backward (ms)"] = "backward 뒤에 남은 all-reduce (ms)",
  ["hidden behind backward"] = "backward 뒤에 숨은 비율",
  ["gradients (MiB)"] = "gradient (MiB)",
  ["ResNet-8: final loss"] = "ResNet-8: 최종 loss",
  ["yours"] = "내 것",
  ["your reducer.lua"] = "내 reducer.lua",
  ["the naive run"] = "순진한 run",
  ["your reducer.lua on the wide ResNet"] = "wide ResNet 위의 내 reducer.lua",
  ["the naive run of the wide ResNet"] = "wide ResNet 의 순진한 run",
  ["results pane (3); your reducer's ready() and wait()"] = "results pane (3); 내 reducer 의 ready() 와 wait()",
  ["final loss, your reducer vs the naive exchange"] = "최종 loss, 내 reducer vs 순진한 교환",
  ["results pane (3), table 'final loss'"] = "results pane (3), '최종 loss' 표",
  ["every gradient in one all-reduce after backward, the wide ResNet"] = "backward 뒤에 모든 gradient 를 all-reduce 한 번으로, wide ResNet",
  ["after backward"] = "backward 뒤에",
  ["the after-backward run of the wide ResNet"] = "wide ResNet 의 backward 뒤 교환 run",
  ["results pane (3), table 'the wide ResNet': step time, yours against 'after backward'; timeline pane (4): when do your all-reduces run?"] =
    "results pane (3), 'wide ResNet' 표: step time, 내 것과 'backward 뒤에' 를 비교; timeline pane (4): 내 all-reduce 는 언제 도는가?",
  ["the wide ResNet's runs reported no step or all-reduce time"] = "wide ResNet 의 run 이 step time 이나 all-reduce 시간을 보고하지 않았다",
  ["step_ms and comm_ms in both runs' summaries"] = "두 run 의 요약에 step_ms 와 comm_ms",
  ["%.0f %% (%.3f ms of %.3f ms)"] = "%.0f %% (%.3f ms / %.3f ms)",
  [">= %.0f %% of one all-reduce of every gradient"] = "모든 gradient 의 all-reduce 한 번의 %.0f %% 이상",
  ["your reducer took %.0f %% of one all-reduce of every gradient (%.3f ms) off the step: %.3f ms against %.3f ms for the same gradients all-reduced in one call after backward"] =
    "내 reducer 가 모든 gradient 를 all-reduce 한 번 하는 시간의 %.0f %% (그 한 번은 %.3f ms) 를 step 에서 덜어냈다: 내 것 %.3f ms, 같은 gradient 를 backward 뒤에 한 번에 all-reduce 하면 %.3f ms",
  ["your reducer took only %.0f %% of one all-reduce of every gradient (%.3f ms) off the step: %.3f ms against %.3f ms for the same gradients all-reduced in one call after backward; wanted at least %.0f %%"] =
    "내 reducer 는 모든 gradient 를 all-reduce 한 번 하는 시간의 %.0f %% (그 한 번은 %.3f ms) 만 step 에서 덜어냈다: 내 것 %.3f ms, 같은 gradient 를 backward 뒤에 한 번에 all-reduce 하면 %.3f ms; 적어도 %.0f %% 를 원한다",
  ["%d ranks share %d GPU(s): the step-time bar is not checked here (after backward %.3f ms, yours %.3f ms)"] =
    "rank %d 개가 GPU %d 개를 나눠 쓴다: 여기서는 step time 기준을 보지 않는다 (backward 뒤에 %.3f ms, 내 것 %.3f ms)",
  ["all-reduce time hidden behind backward"] = "backward 뒤에 숨은 all-reduce 시간",
  ["all of it (the bar: a quarter)"] = "전부 (기준: 4 분의 1)",
  ["results pane (3), row 'hidden behind backward'; timeline pane (4)"] =
    "results pane (3), 'backward 뒤에 숨은 비율' 행; timeline pane (4)",

  -- step 4: the bucket sweep
  ["The bucket size, swept"] = "bucket 크기를 훑는다",
  ["Your reducer packs whole gradients, last layer first, into buckets of at most 25 MiB: count them from the gradient size in the table (and the rule that a bucket never splits a gradient)."] =
    "내 reducer 는 gradient 를 통째로, 마지막 layer 부터, 최대 25 MiB 의 bucket 에 채운다: 표의 gradient 크기 (와 bucket 이 gradient 를 절대 쪼개지 않는다는 규칙) 로 bucket 을 세라.",
  ["How many all_reduce calls does one step make with 25 MiB buckets?"] =
    "bucket 이 25 MiB 일 때 한 step 은 all_reduce 를 몇 번 부르는가?",
  ["%d MiB buckets"] = "%d MiB bucket",
  ["bucket size (wide ResNet, %d ranks, %s MiB of gradients)"] = "bucket 크기 (wide ResNet, rank %d 개, gradient %s MiB)",
  ["hidden"] = "숨은 비율",
  ["the 25 MiB run reported no bucket count: does your reducer keep self.buckets?"] =
    "25 MiB run 이 bucket 수를 보고하지 않았다: 내 reducer 가 self.buckets 를 갖고 있는가?",
  ["a list of buckets"] = "bucket 목록",
  ["all_reduce calls per step with 25 MiB buckets"] = "25 MiB bucket 일 때 step 당 all_reduce 호출 수",
  ["results pane (3): the gradient size"] = "results pane (3): gradient 크기",
  [" - PyTorch's DDP would make %d all-reduces of the same %.1f MiB: a first bucket of 1 MiB, and buckets closed once they reach 25 MiB"] =
    " - PyTorch 의 DDP 라면 all-reduce %d 번으로 같은 %.1f MiB 를 보낸다: 첫 bucket 은 1 MiB 이고, bucket 은 25 MiB 에 도달하면 닫힌다",
  [" - that is what PyTorch's rule would make (a 1 MiB first bucket, buckets closed once they reach the cap); count the buckets of YOUR reducer's rule, which closes a bucket before the cap is passed"] =
    " - 그 값은 PyTorch 의 규칙 (첫 bucket 1 MiB, bucket 은 cap 에 도달하면 닫힌다) 으로 센 bucket 수다; 내 reducer 의 규칙, 즉 cap 을 넘기 전에 bucket 을 닫는 규칙으로 세라",

  -- step 5: broadcast
  ["Pitfall: ranks that start apart"] = "함정: 서로 다른 곳에서 출발한 rank",
  ["each rank initialises its own parameters"] = "각 rank 가 자기 parameter 를 초기화한다",
  ["the same, then rank 0's parameters broadcast"] = "같은 것, 그다음 rank 0 의 parameter 를 broadcast",
  ["parameter checksums after %d steps of naive data parallel"] = "순진한 data parallel %d step 뒤의 parameter checksum",
  ["no broadcast"] = "broadcast 없음",
  ["broadcast from rank 0"] = "rank 0 에서 broadcast",
  ["the run without a broadcast"] = "broadcast 없는 run",
  ["the run with the broadcast"] = "broadcast 한 run",
  ["without a broadcast the ranks still agree: did each rank start from its own values?"] =
    "broadcast 가 없는데도 rank 들이 같다: 각 rank 가 자기 값에서 출발했는가?",
  ["without a broadcast the ranks stay apart, averaged gradients or not: %s"] =
    "broadcast 가 없으면 gradient 를 평균하든 말든 rank 들은 떨어진 채로 남는다: %s",
  ["different parameters on the ranks"] = "rank 마다 다른 parameter",

  -- step 6: batch-norm buffers
  ["Pitfall: batch norm's statistics, per rank"] = "함정: rank 마다 다른 batch norm 통계",
  ["naive data parallel, each rank keeps its own running statistics"] = "순진한 data parallel, 각 rank 가 자기 running 통계를 유지",
  ["the same, rank 0's buffers broadcast before every forward"] = "같은 것, 매 forward 전에 rank 0 의 buffer 를 broadcast",
  ["after %d steps: parameters, batch-norm buffers and the held-out loss in eval mode"] =
    "%d step 뒤: parameter, batch-norm buffer, eval mode 의 held-out loss",
  ["buffers (own)"] = "buffer (자기 것)",
  ["eval loss (own)"] = "eval loss (자기 것)",
  ["buffers (broadcast)"] = "buffer (broadcast)",
  ["eval loss (broadcast)"] = "eval loss (broadcast)",
  ["the run with per-rank buffers"] = "rank 마다 buffer 를 둔 run",
  ["the run with broadcast buffers"] = "buffer 를 broadcast 한 run",
  ["results pane (3), the table of buffers"] = "results pane (3), buffer 표",
  ["with the gradients averaged the parameters agree, but the running statistics do not: %d different sets over %d ranks, held-out loss in eval mode %.4f to %.4f"] =
    "gradient 를 평균하니 parameter 는 같지만 running 통계는 다르다: 서로 다른 set %d 개 / rank %d 개, eval mode 의 held-out loss %.4f ~ %.4f",
  ["each rank kept its own statistics, yet they agree: did every rank see the same images?"] =
    "각 rank 가 자기 통계를 유지했는데도 같다: 모든 rank 가 같은 이미지를 보았는가?",
  ["%d different buffer sets"] = "서로 다른 buffer set %d 개",
  ["one per rank (each normalised its own shard)"] = "rank 마다 하나 (각자 자기 shard 를 normalise 했다)",
  ["with rank 0's buffers broadcast before every forward: %d buffer set over %d ranks"] =
    "매 forward 전에 rank 0 의 buffer 를 broadcast 하면: buffer set %d 개 / rank %d 개",
  ["with rank 0's buffers broadcast before every forward: %d buffer sets over %d ranks"] =
    "매 forward 전에 rank 0 의 buffer 를 broadcast 하면: buffer set %d 개 / rank %d 개",

  -- step 7: the NCCL trace
  ["The NCCL trace of your run"] = "내 run 의 NCCL trace",
  ["The log pane's parsed view of the run (5) lists the channels and, per pair of ranks, the transport."] =
    "log pane 에서 run 을 해석한 view (5) 에 channel 과, rank 쌍마다의 transport 가 나온다.",
  ["The link between the two GPUs is in the topology pane (1); its peak is what lab 2 measured against."] =
    "두 GPU 사이의 link 는 topology pane (1) 에 있다. 그 peak 는 lab 2 가 측정값을 견주었던 값이다.",
  ["The channels share the link: each drives its own ring over it."] =
    "channel 들은 link 를 나눠 쓴다: 각자 그 위에서 자기 ring 을 돌린다.",
  ["Which transport joins rank 0 and rank 1?"] = "rank 0 과 rank 1 을 잇는 transport 는 무엇인가?",
  ["Why that transport: what joins GPU0 and GPU1 (NVLink, PCIe, host memory, sockets or network)?"] =
    "왜 그 transport 인가: GPU0 과 GPU1 을 잇는 것은 무엇인가 (NVLink, PCIe, host memory, sockets, network 중)?",
  ["At the link's one-direction peak, how many GB/s does each of NCCL's channels get (one decimal)?"] =
    "link 의 한 방향 peak 에서 NCCL 의 channel 하나는 몇 GB/s 를 얻는가 (소수 첫째 자리까지)?",
  ["the naive run with NCCL_DEBUG=INFO"] = "NCCL_DEBUG=INFO 로 순진한 run",
  ["NCCL %s, %s ranks, %s node"] = "NCCL %s, rank %s 개, node %s 개",
  ["NCCL %s, %s ranks, %s nodes"] = "NCCL %s, rank %s 개, node %s 개",
  ["the traced run"] = "trace 한 run",
  ["no NCCL INFO lines were parsed from the run"] = "run 에서 해석된 NCCL INFO line 이 없다",
  ["the run's NCCL log"] = "run 의 NCCL log",
  ["transport rank 0 -> rank 1"] = "rank 0 -> rank 1 의 transport",
  ["log pane (5): the parsed view, transports"] = "log pane (5): 해석된 view, transport",
  ["what joins GPU0 and GPU1"] = "GPU0 과 GPU1 을 잇는 것",
  ["topology pane (1): the GPU0-GPU1 cell; lab 1"] = "topology pane (1): GPU0-GPU1 칸; lab 1",
  ["GB/s per channel at the link's peak"] = "link 의 peak 에서 channel 당 GB/s",
  ["log pane (5): the channels; the link's peak (lab 2)"] = "log pane (5): channel; link 의 peak (lab 2)",
  ["no link between two GPUs"] = "두 GPU 사이의 link 없음",
  ["topology pane (1)"] = "topology pane (1)",
  ["one GPU: its ranks share it, so no link between two GPUs carries the channels (the per-channel question applies on a machine with 2+ GPUs, e.g. --machine dgx-h100)"] =
    "GPU 하나: rank 들이 그것을 나눠 쓰므로 channel 을 싣는 GPU 사이 link 가 없다 (channel 당 질문은 GPU 가 2 개 이상인 machine 에서 해당한다, 예: --machine dgx-h100)",

  -- step 8: scaling
  ["Scaling: 1, 2, 4 (and 8) ranks"] = "scaling: rank 1, 2, 4 (그리고 8) 개",
  ["The transport NCCL chose for rank 0 -> rank 1 is in the log pane's parsed view (5) of the 2-rank run; what joins GPU0 and GPU1 is in the topology pane (1)."] =
    "NCCL 이 rank 0 -> rank 1 에 고른 transport 는 rank 2 개 run 의 log pane 해석 view (5) 에 있고, GPU0 과 GPU1 을 잇는 것은 topology pane (1) 에 있다.",
  ["P2P is NVLink or PCIe, whichever joins the two GPUs; SHM goes through host memory; NET/Socket is TCP sockets (emulated nodes), NET/IB the network."] =
    "P2P 는 두 GPU 를 잇는 쪽에 따라 NVLink 또는 PCIe 다; SHM 은 host memory 를 거친다; NET/Socket 은 TCP socket (emulated node), NET/IB 는 network 다.",
  ["What carries the gradients between rank 0 and rank 1 on this machine (NVLink, PCIe, host memory, sockets or network)?"] =
    "이 machine 에서 rank 0 과 rank 1 사이의 gradient 를 실어 나르는 것은 무엇인가 (NVLink, PCIe, host memory, sockets, network 중)?",
  ["the wide ResNet on %d rank, %d images each"] = "rank %d 개 위의 wide ResNet, 각 이미지 %d 장",
  ["the wide ResNet on %d ranks, %d images each"] = "rank %d 개 위의 wide ResNet, 각 이미지 %d 장",
  ["weak scaling: the wide ResNet, %d images per rank, your reducer (25 MiB)"] =
    "weak scaling: wide ResNet, rank 당 이미지 %d 장, 내 reducer (25 MiB)",
  ["ranks"] = "rank 수",
  ["efficiency"] = "efficiency",
  ["the same %d ranks on the SIMULATED dgx-h100 (a GPU each)"] = "같은 rank %d 개를 SIMULATED dgx-h100 위에서 (각자 GPU 하나)",
  ["your reducer at %d ranks: emulated nodes here vs a GPU each"] = "rank %d 개에서 내 reducer: 여기의 emulated node vs 각자 GPU 하나",
  ["where"] = "어디서",
  ["what limits it"] = "무엇이 제한하는가",
  ["here: %d ranks on %d GPU, NCCL over sockets"] = "여기: rank %d 개가 GPU %d 개 위에서, socket 위의 NCCL",
  ["the sockets and the shared GPU, not your reducer"] = "내 reducer 가 아니라 socket 과 나눠 쓰는 GPU",
  ["SIMULATED dgx-h100: a GPU each, NVLink"] = "SIMULATED dgx-h100: 각자 GPU 하나, NVLink",
  ["the all-reduce backward does not hide"] = "backward 가 숨기지 못하는 all-reduce",
  ["your reducer on %d rank"] = "rank %d 개 위의 내 reducer",
  ["your reducer on %d ranks"] = "rank %d 개 위의 내 reducer",
  ["the %d-rank run (no summary row)"] = "rank %d 개 run (summary 행 없음)",
  ["your reducer made no buckets, so the ranks exchanged nothing and the table shows ranks training alone: write step 3's reducer first"] =
    "내 reducer 가 bucket 을 만들지 않아 rank 들이 아무것도 주고받지 않았고, 표는 각자 혼자 학습한 rank 들을 보여 준다: step 3 의 reducer 를 먼저 써라",
  ["no buckets"] = "bucket 없음",
  ["gradients exchanged in buckets"] = "bucket 으로 주고받은 gradient",
  ["your reducer.lua (step 3)"] = "내 reducer.lua (step 3)",
  ["the 2-rank run's NCCL log named no transport for rank 0 -> rank 1"] =
    "rank 2 개 run 의 NCCL log 에 rank 0 -> rank 1 의 transport 가 없다",
  ["a P2P, SHM or NET transport"] = "P2P, SHM 또는 NET transport",
  ["what carries the gradients between rank 0 and rank 1"] = "rank 0 과 rank 1 사이의 gradient 를 실어 나르는 것",
  ["log pane (5): the 2-rank run's transports; topology pane (1): GPU0-GPU1"] =
    "log pane (5): rank 2 개 run 의 transport; topology pane (1): GPU0-GPU1",
  ["%s - at %d ranks the step keeps %.0f %% of linear scaling here, but these are emulated nodes: ranks sharing one GPU over NCCL's sockets, which measures the sockets, not your reducer; with a GPU each (the SIMULATED dgx-h100) the same step keeps %.0f %%"] =
    "%s - rank %d 개에서 step 은 여기서 linear scaling 의 %.0f %% 를 유지한다. 그러나 이것은 emulated node 다: GPU 하나를 나눠 쓰는 rank 들이 NCCL 의 socket 으로 통신하므로, 내 reducer 가 아니라 socket 을 잰 것이다; 각자 GPU 하나 (SIMULATED dgx-h100) 면 같은 step 이 %.0f %% 를 유지한다",
  ["%s - at %d ranks the step keeps %.0f %% of linear scaling; the all-reduce still showing after backward is what it loses"] =
    "%s - rank %d 개에서 step 은 linear scaling 의 %.0f %% 를 유지한다; 잃는 것은 backward 뒤에 아직 보이는 all-reduce 다",
}
