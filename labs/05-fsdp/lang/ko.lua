-- labs/05-fsdp/lang/ko.lua - the Korean of this lab's texts: the English text
-- exactly as lab.lua writes it -> its Korean, placeholders in the same order
-- (docs/lab-authoring.md, the language contract of issue 29).
return {
  -- the lab
  ["FSDP: a 70B Llama on 8 GPUs"] = "FSDP: GPU 8 개 위의 70B Llama",
  ["Why Llama-2-70B does not fit, the memory planner, your FSDP configuration until it runs, the all-gather / reduce-scatter timeline with your prefetch, and the same code on real numbers"] =
    "Llama-2-70B 가 왜 들어가지 않는가, memory planner, 돌 때까지 고치는 내 FSDP configuration, 내 prefetch 로 보는 all-gather / reduce-scatter timeline, 그리고 실제 숫자 위의 같은 코드",
  ["any: the 70B steps run on the sim's phantom tensors (timing and memory only) - on a sim preset of 8 or more GPUs that machine, anywhere else the SIMULATED dgx-h100 (the note's 8 H100s); the proxy on this machine"] =
    "어디서나: 70B step 은 sim 의 phantom tensor (시간과 memory 만) 위에서 돈다 - GPU 8 개 이상인 sim preset 에서는 그 machine, 그 밖에서는 SIMULATED dgx-h100 (노트의 H100 8 개); proxy 는 이 machine 에서",

  -- shared by the steps
  ["SIMULATED %s, the note's 8 H100s: this machine has %d GPU"] = "SIMULATED %s, 노트의 H100 8 개: 이 machine 에는 GPU %d 개",
  ["SIMULATED %s, the note's 8 H100s: this machine has %d GPUs"] = "SIMULATED %s, 노트의 H100 8 개: 이 machine 에는 GPU %d 개",
  ["no result"] = "결과 없음",
  ["%s did not finish: %s"] = "%s: 끝나지 않았다 - %s",
  ["every rank finishes"] = "모든 rank 가 끝난다",
  ["log pane (5)"] = "log pane (5)",
  ["step time (ms)"] = "step time (ms)",
  ["step"] = "step",
  ["parameters"] = "parameter",
  ["results pane (3), table 'loss'"] = "results pane (3), 'loss' 표",

  -- step 1: the plan
  ["Plan: does Llama-2-70B fit?"] = "계획: Llama-2-70B 는 들어가는가?",
  ["Count the parameters from the shapes in the text first: embedding, 80 layers (attention: Q and O are dim x dim, K and V dim x (8 x 128); MLP: three dim x ffn), final norm, LM head. About 69 billion."] =
    "먼저 본문의 shape 에서 parameter 를 세라: embedding, layer 80 개 (attention: Q 와 O 는 dim x dim, K 와 V 는 dim x (8 x 128); MLP: dim x ffn 세 개), final norm, LM head. 약 690 억 개다.",
  ["Mixed-precision AdamW keeps 16 bytes per parameter: 2 (bf16 weight) + 2 (bf16 gradient) + 4 + 4 + 4 (fp32 master, m, v). DDP keeps all of it on every GPU; FULL_SHARD divides all of it by the ranks."] =
    "mixed-precision AdamW 는 parameter 당 16 byte 를 갖는다: 2 (bf16 weight) + 2 (bf16 gradient) + 4 + 4 + 4 (fp32 master, m, v). DDP 는 그 전부를 모든 GPU 에 두고, FULL_SHARD 는 그 전부를 rank 수로 나눈다.",
  ["The parameter count (the first table) times the bytes per parameter is one replica's states; FULL_SHARD's share is that over the ranks. Compare each with one GPU's memory (the first table's last row) - and remember that it is before a single activation is kept."] =
    "parameter 수 (첫 표) 곱하기 parameter 당 byte 가 replica 하나의 state 다; FULL_SHARD 의 몫은 그것을 rank 수로 나눈 것이다. 각각을 GPU 하나의 memory (첫 표의 마지막 행) 와 비교하라 - 그리고 이것이 activation 을 하나도 남기기 전이라는 것을 기억하라.",
  ["Does one replica (DDP) fit one GPU of the planned machine (8 GPUs; the first table names it)? (yes/no)"] =
    "replica 하나 (DDP) 가 계획한 machine (GPU 8 개; 첫 표에 이름이 있다) 의 GPU 하나에 들어가는가? (yes/no)",
  ["Does FULL_SHARD over the planned machine's 8 GPUs fit, no checkpointing, no offload? (yes/no)"] =
    "checkpointing 없이, offload 없이, 계획한 machine 의 GPU 8 개에 걸친 FULL_SHARD 는 들어가는가? (yes/no)",
  ["FULL_SHARD: GB (10^9 bytes) per GPU of parameters + gradients + AdamW states?"] =
    "FULL_SHARD: parameter + gradient + AdamW state 는 GPU 당 몇 GB (10^9 byte) 인가?",
  ["the parameters"] = "parameter",
  ["the gradients"] = "gradient",
  ["AdamW's states (fp32 master, m, v; made at the first optimizer step)"] =
    "AdamW 의 state (fp32 master, m, v; 첫 optimizer step 에서 만들어진다)",
  ["the activations kept for backward"] = "backward 를 위해 남겨 둔 activation",
  ["The planner's bytes per GPU for your configuration, largest first: %s (the GPU: %s GB)"] =
    "내 configuration 에 대한 planner 의 GPU 당 byte, 큰 것부터: %s (GPU: %s GB)",
  ["GB per GPU, %d ranks, micro-batch 1, seq 4096 unless said (GPU: %s GB; fits: the peak leaves 5 %% of it free; %s)"] =
    "GPU 당 GB, rank %d 개, 따로 적지 않으면 micro-batch 1, seq 4096 (GPU: %s GB; fits: peak 뒤에 그 5 %% 가 비어 있다; %s)",
  ["strategy"] = "strategy",
  ["params"] = "params",
  ["grads"] = "grads",
  ["optimizer"] = "optimizer",
  ["states"] = "states",
  ["peak"] = "peak",
  ["peak at"] = "peak 위치",
  ["fits"] = "fits",
  ["runs out at"] = "모자라는 곳",
  ["the planner for %d GPUs"] = "GPU %d 개에 대한 planner",
  ["the planner plans for %s"] = "planner 가 계획하는 machine: %s",
  ["Llama-2-70B from its shapes"] = "shape 로 본 Llama-2-70B",
  ["layers / hidden / FFN"] = "layer / hidden / FFN",
  ["heads / KV heads / vocabulary"] = "head / KV head / vocabulary",
  ["parameters (counted from the shapes)"] = "parameter (shape 에서 센 수)",
  ["%.2f billion"] = "%.2f × 10^9 개",
  ["the machine planned for"] = "계획한 machine",
  ["%d GPUs of %s GB (%.2f GiB): %s"] = "GPU %d 개, 각 %s GB (%.2f GiB): %s",
  ["the planner's table appears once you have answered the three questions (press a)"] =
    "planner 의 표는 세 질문에 답하면 나타난다 (a 를 누른다)",
  ["the planner"] = "planner",
  ["step text: the shapes and the 16 bytes per parameter; results pane (3): the planner's table, once all three are answered"] =
    "step 본문: shape 와 parameter 당 16 byte; results pane (3): 셋 모두 답하면 나오는 planner 의 표",
  ["a replica fits one GPU"] = "replica 하나가 GPU 하나에 들어간다",
  ["FULL_SHARD fits"] = "FULL_SHARD 가 들어간다",
  ["GB per GPU of FULL_SHARD's parameters, gradients and AdamW states"] =
    "FULL_SHARD 의 parameter, gradient, AdamW state 의 GPU 당 GB",
  ["%s (column 'states')"] = "%s ('states' 열)",

  -- step 2: the configuration
  ["Exercise: an FSDP configuration that runs"] = "실습: 도는 FSDP configuration",
  ["Read where the out-of-memory error happened: in the forward, the activations every layer keeps for backward; in the optimizer step, AdamW's states. The planner's table lists what each option saves."] =
    "out-of-memory error 가 어디서 났는지 읽어라: forward 에서라면 각 layer 가 backward 를 위해 남기는 activation, optimizer step 에서라면 AdamW 의 state 다. planner 의 표에 option 마다 아끼는 양이 있다.",
  ["checkpoint = true keeps one tensor per layer instead of all of them; offload = true moves the fp32 master copy and AdamW's m and v (12 of the 16 bytes per parameter) to the CPU - ZeRO-Offload's optimizer offload, not PyTorch FSDP's CPUOffload."] =
    "checkpoint = true 는 layer 마다 tensor 를 전부가 아니라 하나만 남긴다; offload = true 는 fp32 master copy 와 AdamW 의 m, v (parameter 당 16 byte 중 12 byte) 를 CPU 로 옮긴다 - PyTorch FSDP 의 CPUOffload 가 아니라 ZeRO-Offload 의 optimizer offload 다.",
  ["An out-of-memory verdict lists the planner's bytes for your configuration, largest first: turn on the option that shrinks the largest part, run again, and read the next verdict - on 8 H100s one option is not enough, and the sequence stays 4096 tokens."] =
    "out-of-memory verdict 는 내 configuration 에 대한 planner 의 byte 를 큰 것부터 나열한다: 가장 큰 부분을 줄이는 option 을 켜고, 다시 돌리고, 다음 verdict 를 읽어라 - H100 8 개에서는 option 하나로 모자라며, sequence 는 4096 token 그대로다.",
  ["config.lua does not load: %s"] = "config.lua 를 load 할 수 없다: %s",
  ["config.lua must return a table"] = "config.lua 는 table 을 return 해야 한다",
  ["config.lua: unknown key '%s' (the keys: sharding, offload, checkpoint, micro_batch, seq)"] =
    "config.lua: 모르는 key '%s' (key 는 sharding, offload, checkpoint, micro_batch, seq)",
  ["config.lua: %s must be a %s"] = "config.lua: %s 에는 %s 값이 와야 한다",
  ["config.lua: sharding '%s' is not FULL_SHARD, SHARD_GRAD_OP or NO_SHARD"] =
    "config.lua: sharding '%s': FULL_SHARD, SHARD_GRAD_OP, NO_SHARD 중 어느 것도 아니다",
  ["config.lua: %s must be a whole number from 1 to %d"] = "config.lua: %s - 1 부터 %d 까지의 정수여야 한다",
  ["config.lua trains %d-token sequences: the run is Llama 2's, %d tokens each - make the memory fit with how FSDP shards, checkpoints and offloads, not by cutting the work"] =
    "config.lua 는 %d-token sequence 로 학습한다: 이 run 은 Llama 2 의 것, 각 %d token 이다 - 일을 줄여서가 아니라 FSDP 가 shard 하고, checkpoint 하고, offload 하는 방식으로 memory 를 맞춰라",
  ["Llama-2-70B, %s, %d ranks, on phantom tensors"] = "Llama-2-70B, %s, rank %d 개, phantom tensor 위에서",
  ["Llama-2-70B on %s"] = "Llama-2-70B 를 돌리는 곳: %s",
  ["your configuration on %d ranks (%s)"] = "rank %d 개 위의 내 configuration (%s)",
  ["sharding / checkpoint / offload"] = "sharding / checkpoint / offload",
  ["micro-batch x sequence"] = "micro-batch x sequence",
  ["the run"] = "run",
  ["finished 2 steps"] = "2 step 을 끝냈다",
  ["stopped: %s"] = "멈춤: %s",
  ["measured peak per rank (GB)"] = "측정한 rank 당 peak (GB)",
  ["planner's peak (GB)"] = "planner 의 peak (GB)",
  ["planner: peak at"] = "planner: peak 위치",
  ["planner: runs out at"] = "planner: 모자라는 곳",
  ["never"] = "없음",
  ["GPU memory (GB)"] = "GPU memory (GB)",
  ["a configuration table"] = "configuration table",
  ["results pane (3), table 'your configuration'"] = "results pane (3), '내 configuration' 표",
  ["out of memory - %s. %s: change config.lua until it fits (the planner's table of step 1 says which configurations fit)"] =
    "out of memory - %s. %s: 들어갈 때까지 config.lua 를 바꿔라 (step 1 의 planner 표에 어느 configuration 이 들어가는지 나와 있다)",
  ["the run failed: %s"] = "run 이 실패했다: %s",
  ["two training steps within each GPU's memory"] = "각 GPU 의 memory 안에서 학습 step 두 번",
  ["log pane (5); config.lua"] = "log pane (5); config.lua",
  ["measured peak per rank (GB) against the planner's"] = "측정한 rank 당 peak (GB) 대 planner 의 peak",

  -- step 3: prefetch
  ["Exercise: prefetch, and the timeline"] = "실습: prefetch, 그리고 timeline",
  ["On the timeline, while a unit computes the comm row is idle, and the next unit's all-gather starts only when its own hook runs. Which all-gather could already be on its way while unit i computes?"] =
    "timeline 에서 unit 이 계산하는 동안 comm 줄은 놀고 있고, 다음 unit 의 all-gather 는 그 unit 자신의 hook 이 돌 때에야 시작한다. unit i 가 계산하는 동안 이미 오고 있을 수 있는 all-gather 는 어느 것인가?",
  ["In before_forward, after waiting for units[i], also start the all-gather of the unit that runs next, with the same gather() and the hook's stream, if it is not gathered yet (u.full is nil). The backward walks down, from the head to the embedding."] =
    "before_forward 에서 units[i] 를 기다린 뒤, 다음에 돌 unit 이 아직 gather 되지 않았으면 (u.full 이 nil) 같은 gather() 와 hook 의 stream 으로 그 unit 의 all-gather 도 시작하라. backward 는 head 에서 embedding 쪽으로 내려간다.",
  ["A unit gathered ahead is waited for in its own hook, when it is the unit at work - not in the hook that started its all-gather: a wait there makes the compute stand still for it again."] =
    "미리 gather 한 unit 은 그것이 일하는 unit 일 때 자기 hook 에서 기다린다 - 그 all-gather 를 시작한 hook 에서가 아니다: 거기서 기다리면 계산이 다시 그것을 위해 멈춰 선다.",
  ["Llama-2-70B without prefetch, %d ranks"] = "prefetch 없는 Llama-2-70B, rank %d 개",
  ["Llama-2-70B with your prefetch.lua"] = "내 prefetch.lua 로 Llama-2-70B",
  ["the proxy with real numbers (this machine): without and with your prefetch"] =
    "실제 숫자의 proxy (이 machine): 내 prefetch 없이, 그리고 있이",
  ["all-gathers + reduce-scatters (ms)"] = "all-gather + reduce-scatter (ms)",
  ["exposed: the compute stream waited (ms)"] = "exposed: compute stream 이 기다린 시간 (ms)",
  ["  of it in the forward (ms)"] = "  그중 forward (ms)",
  ["  of it in the backward (ms)"] = "  그중 backward (ms)",
  ["communication hidden"] = "숨은 통신",
  ["tokens/s per GPU"] = "GPU 당 tokens/s",
  ["model TFLOP/s per GPU"] = "GPU 당 model TFLOP/s",
  ["MFU (of %s TFLOP/s bf16)"] = "MFU (bf16 %s TFLOP/s 대비)",
  ["Llama-2-70B, FULL_SHARD + checkpointing + optimizer offload, %d ranks, micro-batch 1 x 4096 (MODELLED on the %s)"] =
    "Llama-2-70B, FULL_SHARD + checkpointing + optimizer offload, rank %d 개, micro-batch 1 x 4096 (MODELLED: %s)",
  ["no prefetch"] = "prefetch 없음",
  ["your prefetch"] = "내 prefetch",
  ["published figures (real machines, for comparison)"] = "공개된 수치 (실제 machine, 비교용)",
  ["run"] = "run",
  ["model TFLOP/s per GPU or MFU"] = "GPU 당 model TFLOP/s 또는 MFU",
  ["source"] = "출처",
  ["NVIDIA NeMo 24.07, Llama-2-70B, 64 H100 (TP4 PP4, FP8, seq 4096)"] =
    "NVIDIA NeMo 24.07, Llama-2-70B, H100 64 개 (TP4 PP4, FP8, seq 4096)",
  ["Llama 2 70B pretraining, A100-80GB: 1,720,320 GPU-hours for 2.0T tokens"] =
    "Llama 2 70B pretraining, A100-80GB: 2.0T token 에 1,720,320 GPU-hour",
  ["Llama 3 405B pretraining, 8K-16K H100, BF16"] = "Llama 3 405B pretraining, H100 8K-16K 개, BF16",
  ["~323 (derived)"] = "~323 (계산값)",
  ["the 70B run without prefetch (FULL_SHARD + checkpointing + offload)"] =
    "prefetch 없는 70B run (FULL_SHARD + checkpointing + offload)",
  ["log pane (5): the planner's table of step 1 says whether it fits this machine"] =
    "log pane (5): step 1 의 planner 표에 이 machine 에 들어가는지 나와 있다",
  ["your prefetch.lua on the 70B"] = "70B 위의 내 prefetch.lua",
  ["the proxy without prefetch"] = "prefetch 없는 proxy",
  ["your prefetch.lua on the proxy"] = "proxy 위의 내 prefetch.lua",
  ["exposed communication in the %s: %.1f ms without prefetch, %.1f ms with yours: %.0f %% less (wanted at least 50 %% less in each pass)"] =
    "%s 의 exposed communication: prefetch 없이 %.1f ms, 내 것으로 %.1f ms: %.0f %% 감소 (각 pass 에서 적어도 50 %% 감소를 요구)",
  ["<= %.1f ms in the %s with your prefetch"] = "내 prefetch 로 <= %.1f ms (%s)",
  ["results pane (3), row 'of it in the %s'; timeline pane (4): the comm row against the default row; your prefetch.lua: %s"] =
    "results pane (3), '그중 %s' 행; timeline pane (4): comm 줄과 default 줄 비교; 내 prefetch.lua: %s",
  ["every unit's compute was queued after its all-gather had ended"] = "모든 unit 의 계산이 그 all-gather 가 끝난 뒤에 queue 되었다",
  ["%d unit's compute could start before its all-gather ended, the first in %s: the default stream must wait for the unit's event - also when an earlier hook gathered it"] =
    "unit %d 개의 계산이 그 all-gather 가 끝나기 전에 시작할 수 있었다, 첫 번째는 %s: default stream 은 unit 의 event 를 기다려야 한다 - 앞선 hook 이 gather 했을 때도",
  ["%d units' compute could start before their all-gather ended, the first in %s: the default stream must wait for the unit's event - also when an earlier hook gathered it"] =
    "unit %d 개의 계산이 그 all-gather 가 끝나기 전에 시작할 수 있었다, 첫 번째는 %s: default stream 은 unit 의 event 를 기다려야 한다 - 앞선 hook 이 gather 했을 때도",
  ["%d early"] = "%d 개 일찍 시작",
  ["your prefetch.lua: which hook waits for a unit's event, and when"] =
    "내 prefetch.lua: 어느 hook 이 언제 unit 의 event 를 기다리는가",
  ["every all-gather was queued on the hook's stream"] = "모든 all-gather 가 hook 의 stream 에 queue 되었다",
  ["%d all-gather was queued on a stream other than the hook's `stream`, the first %s: off the communicator's stream an all-gather runs between the layers' kernels, not beside them"] =
    "all-gather %d 개가 hook 의 `stream` 이 아닌 stream 에 queue 되었다, 첫 번째는 %s: communicator 의 stream 밖에서는 all-gather 가 layer 의 kernel 옆이 아니라 그 사이에서 돈다",
  ["%d all-gathers were queued on a stream other than the hook's `stream`, the first %s: off the communicator's stream an all-gather runs between the layers' kernels, not beside them"] =
    "all-gather %d 개가 hook 의 `stream` 이 아닌 stream 에 queue 되었다, 첫 번째는 %s: communicator 의 stream 밖에서는 all-gather 가 layer 의 kernel 옆이 아니라 그 사이에서 돈다",
  ["%d on another stream"] = "다른 stream 에 %d 개",
  ["your prefetch.lua: the stream each gather is queued on"] = "내 prefetch.lua: 각 gather 가 queue 되는 stream",
  ["no unit gathered ahead was waited for before the unit at work computed"] =
    "미리 gather 한 unit 을 일하는 unit 의 계산 전에 기다린 경우는 없다",
  ["%d unit was gathered ahead but waited for at once, the first %s: the default stream stood still until it arrived, so it overlapped nothing"] =
    "unit %d 개를 미리 gather 했지만 바로 기다렸다, 첫 번째는 %s: default stream 이 그것이 도착할 때까지 멈춰 있었으므로 아무것도 겹치지 않았다",
  ["%d units were gathered ahead but waited for at once, the first %s: the default stream stood still until it arrived, so it overlapped nothing"] =
    "unit %d 개를 미리 gather 했지만 바로 기다렸다, 첫 번째는 %s: default stream 이 그것이 도착할 때까지 멈춰 있었으므로 아무것도 겹치지 않았다",
  ["%d waited for at once"] = "%d 개를 바로 기다림",
  ["your prefetch.lua: which unit's event the default stream waits for in each hook"] =
    "내 prefetch.lua: 각 hook 에서 default stream 이 어느 unit 의 event 를 기다리는가",
  ["the proxy's parameters after %d steps, with your prefetch vs without"] =
    "%d step 뒤 proxy 의 parameter, 내 prefetch 있이 vs 없이",
  ["your prefetch.lua: a unit used before its all-gather finished, or gathered twice?"] =
    "내 prefetch.lua: all-gather 가 끝나기 전에 쓴 unit, 또는 두 번 gather 한 unit?",

  -- step 4: the proxy
  ["Real numbers: the same FSDP on a proxy"] = "실제 숫자: proxy 위의 같은 FSDP",
  ["the proxy on %d ranks: FSDP and the unsharded reference"] = "rank %d 개 위의 proxy: FSDP 와 shard 하지 않은 reference",
  ["loss: one unsharded model on %d sequences vs FSDP over %d ranks x %d"] =
    "loss: sequence %d 개 위의 shard 하지 않은 model 하나 vs rank %d 개 x %d 개의 FSDP",
  ["reference"] = "reference",
  ["after %d steps"] = "%d step 뒤",
  ["%d (3 layers, dim 64, FFN 160, 4 heads / 2 KV heads)"] = "%d 개 (layer 3 개, dim 64, FFN 160, head 4 개 / KV head 2 개)",
  ["largest |FSDP - reference|"] = "가장 큰 |FSDP - reference|",
  ["in"] = "위치",
  ["the proxy"] = "proxy",
  ["FSDP's parameters after %d steps differ from the unsharded reference's by at most %.3g (in %s); tolerance 1e-4 (f32 sums in another order)"] =
    "%d step 뒤 FSDP 의 parameter 는 shard 하지 않은 reference 의 것과 최대 %.3g 다르다 (%s 에서); 허용 오차 1e-4 (다른 순서로 더한 f32 합)",
  ["results pane (3), table 'after'"] = "results pane (3), '... step 뒤' 표",
  ["the last step's loss, FSDP vs reference"] = "마지막 step 의 loss, FSDP vs reference",
}
