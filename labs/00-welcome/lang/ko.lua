-- labs/00-welcome/lang/ko.lua - the Korean of this lab's texts: the English
-- text exactly as lab.lua writes it -> its Korean, placeholders in the same
-- order (docs/lab-authoring.md, the language contract of issue 29).
return {
  -- lab
  ["Welcome"] = "시작하기",
  ["The shell, the backends (cuda, emulated nodes, sim), steps, checks and progress"] =
    "shell, backend (cuda, emulated nodes, sim), step, check, 진행 상황",
  ["cuda (1+ GPUs; 2 ranks as emulated nodes on one GPU) and sim (any preset)"] =
    "cuda (GPU 1 개 이상; GPU 1 개면 rank 2 개를 emulated node 로) 와 sim (어느 preset 이든)",

  -- step 1
  ["Finding your way around the shell"] = "shell 둘러보기",
  ["Press ? at any time for the list of keys."] = "언제든 ? 를 누르면 키 목록이 나온다.",
  ["1-5 switch the pane below the text; Tab cycles through them."] =
    "1-5 는 본문 아래 pane 을 바꾼다; Tab 은 frame 을 차례로 돈다.",

  -- step 2
  ["Backends: cuda, emulated nodes, sim"] = "Backend: cuda, emulated nodes, sim",
  ["The backend is named in the results pane's table 'This run' (3); the GPUs are the rows of the " ..
   "topology pane (1); whether ranks are emulated nodes follows from the backend and the number of " ..
   "GPUs (the step text says when)."] =
    "backend 는 results pane (3) 의 'This run' 표에 나온다; GPU 는 topology pane (1) 의 행들이다; " ..
    "rank 가 emulated node 인지는 backend 와 GPU 수에서 따라 나온다 (언제 그런지는 step 본문에 있다).",
  ["Answer with a in the shell (or --answer ID=VALUE headless): backend=cuda or sim, gpus=N, emulated=yes or no."] =
    "shell 에서는 a 로 답한다 (headless 면 --answer ID=VALUE): backend=cuda 또는 sim, gpus=N, emulated=yes 또는 no.",
  ["Which backend ran this step: cuda or sim?"] = "이 step 을 돌린 backend 는 cuda 인가 sim 인가?",
  ["How many GPUs does the machine have (the topology pane lists them)?"] =
    "머신에 GPU 가 몇 개인가 (topology pane 에 나온다)?",
  ["Do this lab's 2 ranks run as emulated nodes (yes or no)?"] =
    "이 lab 의 rank 2 개가 emulated node 로 도는가 (yes 또는 no)?",
  ["This run"] = "이번 실행",
  ["what"] = "항목",
  ["value"] = "값",
  ["this host"] = "이 host",
  ["backend: %s"] = "backend: %s",
  ["backend"] = "backend",
  ["GPUs"] = "GPU 수",
  ["emulated nodes (yes/no)"] = "emulated node 여부 (yes/no)",
  ["results pane (3), row 'backend'"] = "results pane (3), 'backend' 행",
  ["topology pane (1): one row per GPU"] = "topology pane (1): GPU 하나에 한 행",
  ["the step text (when ranks are emulated nodes) and the topology pane (1)"] =
    "step 본문 (rank 가 언제 emulated node 인지) 과 topology pane (1)",

  -- step 3
  ["Hands-on: every rank says who it is"] = "실습: 모든 rank 가 자기가 누구인지 말한다",
  ["Every rank runs the same file. mgpu.rank is this rank's number (0, 1, ...), mgpu.world the number of ranks."] =
    "모든 rank 가 같은 파일을 돌린다. mgpu.rank 는 이 rank 의 번호 (0, 1, ...), mgpu.world 는 rank 의 수다.",
  ["TODO 2: a random fill takes a seed; the seed makes each rank's data different, and the same on every run, "
     .. "when it is a number each rank has of its own (docs/spmd.md: t:fill)."] =
    "TODO 2: random fill 은 seed 를 받는다; seed 가 rank 마다 자기만 가진 숫자이면 rank 마다 데이터가 다르고, "
      .. "실행할 때마다 같다 (docs/spmd.md: t:fill).",
  ["The check rebuilds each rank's expected checksum by filling the same tensor with seed = rank itself."] =
    "check 는 같은 tensor 를 seed = rank 로 직접 채워서 rank 마다 기대하는 checksum 을 다시 만든다.",
  ["hello.lua, one row per rank"] = "hello.lua, rank 하나에 한 행",
  ["rank"] = "rank",
  ["reported rank"] = "보고한 rank",
  ["reported world"] = "보고한 world",
  ["checksum"] = "checksum",
  ["expected checksum"] = "기대 checksum",
  ["results pane (3), table 'hello.lua, one row per rank'"] =
    "results pane (3), 'hello.lua, rank 하나에 한 행' 표",
  ["on %d ranks sharing one GPU (the SIMULATED single-gpu): "] =
    "GPU 하나를 나눠 쓰는 rank %d 개에서 (SIMULATED single-gpu): ",
  ["your hello.lua; try it: mgpulab spmd hello.lua --ranks %d --backend sim --machine single-gpu"] =
    "내 hello.lua; 직접 돌려보기: mgpulab spmd hello.lua --ranks %d --backend sim --machine single-gpu",
  ["%shello.lua did not finish on rank %d: %s"] = "%shello.lua 가 rank %d 에서 끝나지 않았다: %s",
  ["rank %d stopped with an error"] = "rank %d 에서 error 가 나서 멈췄다",
  ["every rank finishes its script"] = "모든 rank 가 script 를 끝까지 돈다",
  ["log pane (5): the error and its line number"] = "log pane (5): error 와 그 줄 번호",
  ["rank %d reported nothing: every rank must call mgpu.result{...}"] =
    "rank %d 에서 보고가 없다: 모든 rank 가 mgpu.result{...} 를 불러야 한다",
  ["rank %d reports rank %s: mgpu.rank is this rank's number, whatever GPU it runs on"] =
    "rank %d 의 보고는 rank %s: mgpu.rank 는 어느 GPU 에서 돌든 이 rank 의 번호다",
  ["rank %d reports world %s, but %d ranks ran: mgpu.world is the number of ranks "
     .. "(not of GPUs, nor the count of one run)"] =
    "rank %d 의 보고는 world %s 인데, 돈 rank 는 %d 개다: mgpu.world 는 rank 의 수다 "
      .. "(GPU 의 수도, 어느 한 실행의 수도 아니다)",
  ["every rank reports the same checksum: the seed must differ from rank to rank"] =
    "모든 rank 가 같은 checksum 을 보고한다: seed 는 rank 마다 달라야 한다",
  ["rank %d's checksum is the one of a tensor of zeros: x is still filled with a constant (TODO 2)"] =
    "rank %d 의 checksum 은 0 으로 채운 tensor 의 것이다: x 가 아직 상수로 채워진다 (TODO 2)",
  ["rank %d's checksum is the one of a tensor filled with seed %d, not seed %d"] =
    "rank %d 의 checksum 은 seed = %d 인 tensor 의 것이다 — 원하는 것은 seed = %d",
  ["rank %d's checksum is not the one of %d floats of kind \"random\" filled with seed %d"] =
    "rank %d 의 checksum 이 float %d 개, kind \"random\", seed = %d 인 tensor 의 것이 아니다",
  ["every rank reports mgpu.rank, mgpu.world and the checksum of its 1024 floats of kind "
     .. "\"random\" with seed = its rank"] =
    "모든 rank 가 mgpu.rank, mgpu.world, 그리고 kind \"random\", seed = 자기 rank 로 채운 "
      .. "float 1024 개의 checksum 을 보고한다",
  ["every rank reports its rank, the world and the checksum of its own seed - on %d ranks here "
     .. "and on %d ranks sharing one GPU"] =
    "모든 rank 가 자기 rank, world, 자기 seed 의 checksum 을 보고한다 — 여기서 rank %d 개로, "
      .. "그리고 GPU 하나를 나눠 쓰는 rank %d 개로",
  ["the right row on every rank"] = "모든 rank 에서 맞는 행",

  -- step 4
  ["Verdicts, progress, hints and reset"] = "Verdict, 진행 상황, hint, reset",
}
