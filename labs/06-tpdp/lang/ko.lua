-- labs/06-tpdp/lang/ko.lua - the Korean of this lab's texts (lab.lua and
-- whatif.lua): the English text exactly as the Lua writes it -> its Korean,
-- placeholders in the same order (docs/lab-authoring.md, issue 29).
return {
  -- the lab
  ["TP x DP: 8 GPUs as 4 TP x 2 DP"] = "TP x DP: GPU 8 개를 4 TP x 2 DP 로",
  ["The groups made with comm:split; the Megatron layer's f and g operators and the gradient sync, checked against the unsharded layer and the flight recorders; TP inside a node vs across nodes"] =
    "comm:split 으로 만드는 group; Megatron layer 의 f, g operator 와 gradient sync, shard 하지 않은 layer 와 flight recorder 로 확인; node 안의 TP vs node 를 가로지르는 TP",
  ["sim (any preset: 8 ranks share the GPUs there are) and cuda (8 GPUs, or ranks as emulated nodes); step 3 needs two nodes: on 2x-dgx-h100 it runs there, anywhere else on the SIMULATED 2x-dgx-h100"] =
    "sim (어느 preset 이든: rank 8 개가 있는 GPU 를 나눠 쓴다) 과 cuda (GPU 8 개, 또는 emulated node 로 도는 rank); step 3 은 node 두 개가 필요하다: 2x-dgx-h100 에서는 거기서, 그 밖에서는 SIMULATED 2x-dgx-h100 에서 돈다",

  -- shared by the steps
  ["%s did not finish: %s"] = "%s: 끝나지 않았다 - %s",
  ["every rank finishes"] = "모든 rank 가 끝난다",
  ["log pane (5)"] = "log pane (5)",
  ["nothing"] = "없음",
  ["rank"] = "rank",
  ["ranks share GPUs (rank r on GPU r mod %d)"] = "rank 들이 GPU 를 나눠 쓴다 (rank r 은 GPU r mod %d 위에)",
  ["the ranks run as emulated nodes"] = "rank 들이 emulated node 로 돈다",
  ["4 TP x 2 DP needs 8 ranks; this machine has %d GPU, so %s"] = "4 TP x 2 DP 에는 rank 8 개가 필요하다; 이 machine 에는 GPU 가 %d 개이므로 %s",
  ["4 TP x 2 DP needs 8 ranks; this machine has %d GPUs, so %s"] = "4 TP x 2 DP 에는 rank 8 개가 필요하다; 이 machine 에는 GPU 가 %d 개이므로 %s",

  -- step 1: the groups
  ["Exercise: 8 ranks as 4 TP x 2 DP"] = "실습: rank 8 개를 4 TP x 2 DP 로",
  ["Write the 8 ranks as a grid of 2 rows of 4, the way the file's comment lists the groups: a TP group is a row, a DP group a column. coords(rank) says in which column and which row rank sits."] =
    "rank 8 개를 파일의 주석이 group 을 나열하는 방식대로 4 개씩 2 줄의 격자로 적어 보라: TP group 은 한 줄 (row), DP group 은 한 열 (column) 이다. coords(rank) 는 rank 가 어느 열, 어느 줄에 있는지 말한다.",
  ["split's color decides who ends up together, its key the order inside. Along one TP group, which of the two indices stays the same, and which counts 0, 1, 2, 3?"] =
    "split 의 color 는 누가 함께 묶이는지를, key 는 그 안의 순서를 정한다. TP group 하나를 따라가면 두 index 중 어느 것이 그대로이고, 어느 것이 0, 1, 2, 3 으로 세어지는가?",
  ["coords is a remainder and an integer division by the TP size. Each split takes as its color the index its members share and as its key the one that varies among them; the DP split mirrors the TP one."] =
    "coords 는 TP 크기로 나눈 나머지와 정수 나눗셈이다. 각 split 은 member 들이 공유하는 index 를 color 로, 그들 사이에서 변하는 index 를 key 로 삼는다; DP split 은 TP split 의 거울상이다.",
  [" - that is rank %d's %s group: look at which index each split takes as its color, and at what coords returns first"] =
    " - 그것은 rank %d 의 %s group 이다: 각 split 이 어느 index 를 color 로 삼는지, 그리고 coords 가 무엇을 먼저 return 하는지 보라",
  [" - %d ranks, where a %s group has %d: every rank passed the same color"] =
    " - rank %d 개, %s group 은 %d 개여야 한다: 모든 rank 가 같은 color 를 넘겼다",
  [" - %d ranks, where a %s group has %d"] = " - rank %d 개, %s group 은 %d 개여야 한다",
  [" - ranks %d apart; in Megatron's layout a %s group's ranks are %s"] =
    " - rank 가 %d 씩 떨어져 있다; Megatron 의 배치에서 %s group 의 rank 는 %s",
  ["neighbours (the TP index varies fastest)"] = "이웃한다 (TP index 가 가장 빨리 변한다)",
  ["%d apart (one per TP group)"] = "%d 씩 떨어져 있다 (TP group 마다 하나)",
  ["groups.lua: the %s split (color, key)"] = "groups.lua: %s split (color, key)",
  ["rank %d reported nothing"] = "rank %d 에서 아무 보고도 없다",
  ["a row per rank"] = "rank 마다 행 하나",
  ["rank %d has no %s communicator: its split gave nil (a nil or negative color)"] =
    "rank %d 에 %s communicator 가 없다: split 이 nil 을 주었다 (nil 이거나 음수인 color)",
  ["a communicator of %d ranks"] = "rank %d 개의 communicator",
  ["rank %d's %s communicator holds ranks %s (an all_gather of the members' rank ids over it; their all_reduce sum is %s)%s"] =
    "rank %d 의 %s communicator 의 member: rank %s (그 위에서 member 들의 rank id 를 all_gather 한 결과; all_reduce 합: %s)%s",
  ["%s, sum %s"] = "%s, 합 %s",
  ["rank %d's %s group has the right ranks in another order: %s (the key orders them)"] =
    "rank %d 의 %s group 은 맞는 rank 들을 다른 순서로 갖고 있다: %s (순서는 key 가 정한다)",
  ["ascending order"] = "오름차순",
  ["%s groups %s, by collectives on each"] = "%s group %s, 각각 위의 collective 로 확인",
  ["rank %d: coords gives tp_rank %s, dp_rank %s; your communicators number it %s in the TP one %s and %s in the DP one %s"] =
    "rank %d: coords 가 준 값은 tp_rank %s, dp_rank %s; 내 communicator 는 이 rank 를 TP communicator 에서 %s 번 (%s 중), DP communicator 에서 %s 번 (%s 중) 으로 매긴다",
  ["(none)"] = "(없음)",
  ["its place in %s and in %s"] = "%s 안의 자리와 %s 안의 자리",
  ["coords(rank) is each rank's place in its TP and DP communicators"] =
    "coords(rank) 가 각 rank 의 TP communicator 와 DP communicator 안 자리와 일치한다",
  ["your groups.lua on 8 ranks"] = "rank 8 개 위의 내 groups.lua",
  ["what each rank's communicators hold (all_gather of rank ids, all_reduce sum)"] =
    "각 rank 의 communicator 에 든 것 (rank id 의 all_gather, all_reduce 합)",
  ["TP group"] = "TP group",
  ["sum"] = "합",
  ["DP group"] = "DP group",
  ["your groups.lua"] = "내 groups.lua",
  ["log pane (5); groups.lua"] = "log pane (5); groups.lua",

  -- step 2: the Megatron layer
  ["Exercise: the Megatron layer, f and g"] = "실습: Megatron layer, f 와 g",
  ["f stands where a replicated input enters column-parallel layers, g where row-parallel partial sums leave: each is an all-reduce (sum) over the TP group in one direction and nothing in the other."] =
    "f 는 복제된 입력이 column-parallel layer 로 들어가는 자리에, g 는 row-parallel partial sum 이 나가는 자리에 선다: 각각 한 방향에서는 TP group 위의 all-reduce (sum) 이고 다른 방향에서는 아무것도 아니다.",
  ["After backward each rank holds its DP shard's mean gradient; the DP group holds the same slices for the other half of the batch."] =
    "backward 뒤 각 rank 는 자기 DP shard 의 평균 gradient 를 갖는다; DP group 은 batch 의 다른 절반에 대한 같은 조각들을 갖고 있다.",
  ["Backward runs a block in reverse, so the operator that ends the forward starts the backward. For the gradient sync: which communicator joins the ranks that hold the same slice of a weight, and do two halves' mean gradients add up or average into the whole batch's?"] =
    "backward 는 block 을 거꾸로 돌므로, forward 를 끝내는 operator 가 backward 를 시작한다. gradient sync 는: weight 의 같은 조각을 가진 rank 들을 잇는 communicator 는 어느 것이며, 두 절반의 평균 gradient 는 더해야 batch 전체의 것이 되는가, 평균해야 되는가?",
  ["its input unchanged"] = "입력을 그대로",
  ["the sum over the TP group"] = "TP group 위의 합",
  ["the mean over the TP group (an \"avg\" all-reduce)"] = "TP group 위의 평균 (\"avg\" all-reduce)",
  ["neither its input nor the TP group's sum"] = "입력도 TP group 의 합도 아닌 것",
  ["no tensor"] = "tensor 없음",
  ["a tensor of another shape"] = "다른 shape 의 tensor",
  ["%s:%s gives %s"] = "%s:%s 의 결과: %s",
  ["megatron.lua: F and G; the step text's table of f and g"] = "megatron.lua: F 와 G; step 본문의 f, g 표",
  ["f and g, each tried alone, do what the table says in both directions"] =
    "f 와 g 를 각각 따로 돌려 보면 두 방향 모두 표가 말하는 대로 한다",
  ["f and g, each tried alone on a tensor that differs from rank to rank: %s - the step text's table says what each does in forward and in backward"] =
    "rank 마다 다른 tensor 위에서 f 와 g 를 각각 따로 돌려 보면: %s - 각각이 forward 와 backward 에서 무엇을 하는지는 step 본문의 표에 있다",
  ["each operator as the table of f and g says, in both directions"] = "두 방향 모두 f, g 표가 말하는 대로 동작하는 operator",
  ["outputs"] = "output",
  ["a row-parallel layer's partial sums left their block without being added up over the group"] =
    "row-parallel layer 의 partial sum 이 group 위에서 더해지지 않은 채 block 을 떠났다",
  ["megatron.lua: where g goes in mlp_forward and attention_forward"] = "megatron.lua: mlp_forward 와 attention_forward 에서 g 의 자리",
  ["input gradients"] = "input gradient",
  ["a block's shares of dL/dx left it without being added up over the group"] =
    "block 의 dL/dx 몫이 group 위에서 더해지지 않은 채 block 을 떠났다",
  ["megatron.lua: where f goes in mlp_backward and attention_backward (backward runs in reverse)"] =
    "megatron.lua: mlp_backward 와 attention_backward 에서 f 의 자리 (backward 는 거꾸로 돈다)",
  ["the ranks of TP group %s end the %s with %d different %s: %s"] =
    "TP group %s 의 rank 들이 %s 끝에서 서로 다른 값 %d 가지 (%s) 를 갖는다: %s",
  ["%d different %s in %s"] = "서로 다른 %d 가지 %s, %s 안에서",
  ["the same on every rank of a TP group"] = "TP group 의 모든 rank 에서 같은 값",
  ["every TP group's ranks agree on the %s"] = "모든 TP group 의 rank 들이 %s 에서 일치한다",
  ["megatron.lua: F:backward and where f goes"] = "megatron.lua: F:backward 와 f 의 자리",
  ["megatron.lua: G:forward and where g goes"] = "megatron.lua: G:forward 와 g 의 자리",
  ["rank %d (tp %s, dp %s): the %s differs from the unsharded layer's in %s of %d elements (largest error %s)"] =
    "rank %d (tp %s, dp %s): %s - shard 하지 않은 layer 의 것과 %s / %d 개 element 에서 다르다 (가장 큰 오차 %s)",
  ["within rtol %s, atol %s"] = "rtol %s, atol %s 안",
  ["the %s equals the unsharded layer's on every rank"] = "%s - 모든 rank 에서 shard 하지 않은 layer 의 것과 같다",
  ["output (forward, 2 layers)"] = "output (forward, layer 2 개)",
  ["input gradient"] = "input gradient",
  ["every parameter gradient equals its slice of the unsharded layer's, on every rank"] =
    "모든 rank 에서 모든 parameter gradient 가 shard 하지 않은 layer 의 해당 조각과 같다",
  [", %.2fx the unsharded slice"] = ", shard 하지 않은 조각의 %.2f 배",
  ["rank %d: %s of its %s parameter gradients differ from the same slice of the unsharded layer's gradient; the worst, %s, in %s of %s elements (largest error %s%s)"] =
    "rank %d: parameter gradient %s / %s 개가 shard 하지 않은 layer 의 gradient 의 같은 조각과 다르다; 가장 나쁜 것은 %s, element %s / %s 개에서 (가장 큰 오차 %s%s)",
  ["within the tolerance"] = "허용 오차 안",
  ["megatron.lua: sync_grads (and f, g)"] = "megatron.lua: sync_grads (와 f, g)",
  ["every TP group: %d all-reduces in forward and %d in backward, %d layers (the TP communicators' flight recorders)"] =
    "모든 TP group: forward 에 all-reduce %d 번, backward 에 %d 번, layer %d 개 (TP communicator 의 flight recorder)",
  ["2 + 2 per layer"] = "layer 당 2 + 2",
  ["rank %d's TP communicator recorded %d all-reduces in forward and %d in backward (%d other collectives) for %d layers: %g + %g per layer, where a layer has two blocks (attention, MLP), each entered through f and left through g"] =
    "rank %d 의 TP communicator 가 forward 에 all-reduce %d 번, backward 에 %d 번 (다른 collective %d 번) 을 기록했다, layer %d 개에 대해: layer 당 %g + %g. layer 에는 block 이 두 개 (attention, MLP) 있고, 각각 f 로 들어가 g 로 나간다",
  ["%g + %g per layer"] = "layer 당 %g + %g",
  ["2 in forward + 2 in backward per layer, nothing else"] = "layer 당 forward 2 번 + backward 2 번, 그 밖에는 없음",
  ["the gradients are all-reduced in the DP groups only"] = "gradient 는 DP group 에서만 all-reduce 된다",
  ["rank %d's flight recorders: gradient sync %d collectives on the TP communicator, %d all-reduces on the DP one, %d on the world; %d on the DP one during forward and backward"] =
    "rank %d 의 flight recorder: gradient sync 동안 TP communicator 에 collective %d 번, DP communicator 에 all-reduce %d 번, world 에 %d 번; forward 와 backward 동안 DP communicator 에 %d 번",
  ["all-reduces on the DP communicator only, after backward"] = "backward 뒤, DP communicator 에서만 all-reduce",
  ["your megatron.lua: 2 layers on 8 ranks against the unsharded layers"] =
    "내 megatron.lua: rank 8 개 위의 layer 2 개를 shard 하지 않은 layer 와 비교",
  ["all equal"] = "모두 같음",
  ["each rank against the unsharded layers (largest errors) and its collectives (flight recorders)"] =
    "shard 하지 않은 layer 와 비교한 각 rank (가장 큰 오차) 와 그 collective (flight recorder)",
  ["output"] = "output",
  ["input grad"] = "input grad",
  ["worst gradient"] = "가장 나쁜 gradient",
  ["TP all-reduces fwd / bwd"] = "TP all-reduce fwd / bwd",
  ["DP all-reduces"] = "DP all-reduce",
  ["your megatron.lua"] = "내 megatron.lua",
  ["log pane (5); megatron.lua"] = "log pane (5); megatron.lua",

  -- step 3: TP inside a node, TP across nodes
  ["TP inside a node, TP across nodes"] = "node 안의 TP, node 를 가로지르는 TP",
  ["ratio: per GPU, NVLink carries 450 GB/s each way (lab 1); each GPU of a DGX H100 has its own 400 Gb/s InfiniBand NIC, 50 GB/s each way. How many GPUs of each TP group sit in one node, so how many NICs carry the group's traffic between the nodes? Which algorithm runs inside a node, and which across (the step text)?"] =
    "ratio: NVLink 는 GPU 당 한 방향 450 GB/s 를 나른다 (lab 1); DGX H100 의 GPU 는 각자 400 Gb/s InfiniBand NIC 을 하나씩, 한 방향 50 GB/s 로 갖는다. TP group 마다 node 하나에 GPU 가 몇 개 있고, 그러니 node 사이에서 group 의 traffic 을 NIC 몇 개가 나르는가? node 안에서는 어떤 algorithm 이, node 를 가로질러서는 어떤 algorithm 이 도는가 (step 본문)?",
  ["tp_ms: the TP all-reduces run on the default stream between the layers' GEMMs, so nothing hides them: their count per step times one all-reduce's time."] =
    "tp_ms: TP all-reduce 는 default stream 에서 layer 의 GEMM 사이에 돌므로 아무것도 그것을 숨기지 않는다: step 당 횟수 곱하기 all-reduce 한 번의 시간.",
  ["ratio: in the dp-tp order a TP group has two GPUs in each node. Inside a node the ring moves 2(n-1)/n of the buffer per GPU at NVLink's rate; across, NVLSTree sends each node's sum over the network once, through those two GPUs' NICs. tp_ms: the dp-tp row, once it shows, has both factors."] =
    "ratio: dp-tp 순서에서 TP group 은 node 마다 GPU 두 개를 갖는다. node 안에서 ring 은 GPU 당 buffer 의 2(n-1)/n 을 NVLink 의 속도로 옮긴다; node 를 가로질러서는 NVLSTree 가 각 node 의 합을 그 두 GPU 의 NIC 을 통해 network 로 한 번 보낸다. tp_ms: dp-tp 행이 나타나면 두 인수가 다 있다.",
  ["Predict from the links, before the table shows it: one TP all-reduce across the two nodes takes how many times as long as inside a node (within 25 %)?"] =
    "표가 보여 주기 전에 link 에서 예측하라: node 두 개를 가로지르는 TP all-reduce 한 번은 node 안에서보다 몇 배 걸리는가 (25 % 안)?",
  ["With TP across the nodes, how many ms of each step are TP all-reduces?"] =
    "TP 가 node 를 가로지를 때, 각 step 의 몇 ms 가 TP all-reduce 인가?",
  ["TP %d (rank %d of it)"] = "TP %d 의 rank %d",
  ["DP %d (rank %d of it)"] = "DP %d 의 rank %d",
  ["predict 'ratio' first"] = "먼저 'ratio' 를 예측하라",
  ["across / inside"] = "가로질러 / 안에서",
  ["%sx measured, %sx predicted"] = "측정 %s 배, 예측 %s 배",
  ["order"] = "순서",
  ["TP groups"] = "TP group",
  ["TP links"] = "TP link",
  ["DP links"] = "DP link",
  ["step (ms)"] = "step (ms)",
  ["one TP all-reduce (ms)"] = "TP all-reduce 한 번 (ms)",
  ["TP all-reduces / step"] = "TP all-reduce / step",
  ["DP all-reduce of the gradients (ms)"] = "gradient 의 DP all-reduce (ms)",
  ["one TP all-reduce's time shows once you have predicted 'ratio' from the links (press a)"] =
    "TP all-reduce 한 번의 시간은 link 에서 'ratio' 를 예측하면 나타난다 (a 를 누른다)",
  ["this machine"] = "이 machine",
  ["TP across nodes needs two nodes, and %s has one: this step runs on the SIMULATED %s (two nodes of 8 H100s) instead; this machine has %d GPU"] =
    "node 를 가로지르는 TP 에는 node 두 개가 필요한데 %s 에는 하나뿐이다: 이 step 은 대신 SIMULATED %s (H100 8 개짜리 node 두 개) 위에서 돈다; 이 machine 에는 GPU %d 개",
  ["TP across nodes needs two nodes, and %s has one: this step runs on the SIMULATED %s (two nodes of 8 H100s) instead; this machine has %d GPUs"] =
    "node 를 가로지르는 TP 에는 node 두 개가 필요한데 %s 에는 하나뿐이다: 이 step 은 대신 SIMULATED %s (H100 8 개짜리 node 두 개) 위에서 돈다; 이 machine 에는 GPU %d 개",
  ["ranks on GPUs, order %s%s, on the %s"] = "GPU 위의 rank, 순서 %s%s, %s 위에서",
  [" (TP fastest: step 1's groups)"] = " (TP 가 가장 빠름: step 1 의 group)",
  [" (DP fastest)"] = " (DP 가 가장 빠름)",
  ["node"] = "node",
  ["NVLink island"] = "NVLink island",
  ["your megatron.lua, Llama-2-70B's layers, %s, on the %s"] = "내 megatron.lua, Llama-2-70B 의 layer, %s, %s 위에서",
  [": this machine has %d GPU"] = ": 이 machine 에는 GPU %d 개",
  [": this machine has %d GPUs"] = ": 이 machine 에는 GPU %d 개",
  ["the same model, 2 layers of Llama-2-70B's shapes (SwiGLU MLP of 28672), %d micro-batches of 4096 tokens per step; per rank: activations %s MiB, gradients %s MiB (%s%s)"] =
    "같은 model, Llama-2-70B shape 의 layer 2 개 (28672 의 SwiGLU MLP), step 당 4096 token 짜리 micro-batch %d 개; rank 당: activation %s MiB, gradient %s MiB (%s%s)",
  ["the %s run of your megatron.lua"] = "내 megatron.lua 의 %s run",
  ["your megatron.lua made %d TP all-reduces per step (%d layers, %d micro-batches): pass step 2 first"] =
    "내 megatron.lua 가 step 당 TP all-reduce 를 %d 번 했다 (layer %d 개, micro-batch %d 개): 먼저 step 2 를 통과하라",
  ["step time: TP inside a node %.2f ms, TP across the nodes %.2f ms (x%.2f)"] =
    "step time: node 안의 TP %.2f ms, node 를 가로지르는 TP %.2f ms (x%.2f)",
  ["your prediction of one TP all-reduce, across the nodes / inside a node"] =
    "TP all-reduce 한 번에 대한 내 예측, node 를 가로질러 / node 안에서",
  ["the links in the step text: NVLink per GPU, and how many NICs carry a TP group between the nodes"] =
    "step 본문의 link: GPU 당 NVLink, 그리고 node 사이에서 TP group 을 NIC 몇 개가 나르는가",
  ["ms of TP all-reduces per step, TP across the nodes"] = "step 당 TP all-reduce 의 ms, TP 가 node 를 가로지를 때",
  ["results pane (3): the dp-tp row"] = "results pane (3): dp-tp 행",

  -- step 4: the what-if at scale (whatif.lua)
  ["What-if at scale: 70B on 256 H100s (timing-only)"] = "규모의 what-if: H100 256 개 위의 70B (timing 만)",
  ["Your first layout of the 256 GPUs, DPxTPxPP (e.g. 16x4x4)?"] = "GPU 256 개의 첫 번째 layout, DPxTPxPP (예: 16x4x4)?",
  ["Your second layout, DPxTPxPP?"] = "두 번째 layout, DPxTPxPP?",
  ["Of the three (the note's 8x8x4 and yours), which layout that fits is fastest?"] =
    "셋 (노트의 8x8x4 와 내 것) 중 memory 에 들어가는 layout 가운데 어느 것이 가장 빠른가?",
  ["In the slowest of the three, which axis's traffic costs the most time per step, and over which link (e.g. PP InfiniBand)?"] =
    "셋 중 가장 느린 것에서, step 당 시간을 가장 많이 쓰는 것은 어느 axis 의 traffic 이며, 어떤 link 위인가 (예: PP InfiniBand)?",
  ["simulating Llama-2-70B on 256 H100s in one process (timing-only)"] =
    "H100 256 개 위의 Llama-2-70B 를 process 하나 안에서 simulate 한다 (timing 만)",
  ["results pane: the two what-if tables"] = "results pane: what-if 표 두 개",
  ["the what-if did not finish: %s"] = "what-if 가 끝나지 않았다: %s",
  ["one rank finishes"] = "rank 하나가 끝난다",
  ["the what-if returned no summary"] = "what-if 가 summary 를 돌려주지 않았다",
  ["its summary row"] = "summary 행",
  ["the step text, 'What to do' 2: DPxTPxPP, the product 256"] = "step 본문, '할 일' 2: DPxTPxPP, 곱은 256",
  ["your first layout of the 256 GPUs"] = "GPU 256 개의 첫 번째 layout",
  ["your second layout"] = "두 번째 layout",
  ["the fastest layout that fits"] = "memory 에 들어가는 가장 빠른 layout",
  ["the slowest layout's costliest axis and its link"] = "가장 느린 layout 에서 가장 비싼 axis 와 그 link",
  ["your layouts: run the step again (r) to simulate them - the tables show the layouts of the last run"] =
    "내 layout: simulate 하려면 step 을 다시 돌려라 (r) - 표는 지난 run 의 layout 을 보여 준다",
  ["%d layout(s) in the tables"] = "표 안의 layout %d 개",
  ["your two layouts in the tables"] = "표 안의 내 layout 두 개",
  ["r runs the step again"] = "r 로 step 을 다시 돌린다",
  ["a layout could not be simulated: %s"] = "simulate 할 수 없는 layout 이 있다: %s",
  ["two layouts of 256 GPUs the model can split"] = "model 을 나눌 수 있는, GPU 256 개의 layout 두 개",
  ["the layouts must differ from each other and from the note's 8x8x4"] = "layout 은 서로 다르고 노트의 8x8x4 와도 달라야 한다",
  ["two new layouts"] = "새 layout 두 개",
  ["press a to answer layout_a and layout_b"] = "a 를 눌러 layout_a 와 layout_b 에 답하라",
  ["%s (step s, fits)"] = "%s (step s, fits)",
  ["%s (per step, link)"] = "%s (per step, link)",
}
