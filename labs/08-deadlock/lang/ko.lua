-- labs/08-deadlock/lang/ko.lua - the Korean of this lab's texts: the English
-- text exactly as lab.lua writes it -> its Korean, placeholders in the same
-- order (docs/lab-authoring.md, the language contract of issue 29).
return {
  -- lab
  ["The collective-mismatch deadlock"] = "collective mismatch deadlock",
  ["Ranks call all_reduce with different shapes; the watchdog, flight records, two training-loop bugs, the fingerprint check"] =
    "rank 들이 서로 다른 shape 으로 all_reduce 를 부른다; watchdog, flight record, 학습 loop 의 bug 두 개, fingerprint check",
  ["cuda (N GPUs, or the ranks as emulated nodes on one GPU) and sim (any preset)"] =
    "cuda (GPU N 개, 또는 GPU 하나 위의 emulated node 로 도는 rank 들) 와 sim (어느 preset 이든)",

  -- shared by the steps
  ["log pane (5)"] = "log pane (5)",
  ["results pane (3)"] = "results pane (3)",
  ["flight recorder analysis: %s"] = "flight recorder 분석: %s",
  ["%s completed: the mismatched collective did not hang here"] =
    "%s 실행이 끝났다: 어긋난 collective 가 여기서는 hang 하지 않았다",
  ["the run finished"] = "run 이 끝남",
  ["a hang ended by the watchdog"] = "watchdog 이 끝낸 hang",
  ["log pane (5): the watchdog's message and the analysis"] = "log pane (5): watchdog 의 메시지와 분석",
  ["%s: \"%s\" is not right"] = "%s: \"%s\" - 맞지 않다",
  ["the flight records show no divergence to ask about (the run did not hang?)"] =
    "flight record 에 물어볼 어긋남이 없다 (run 이 hang 하지 않았나?)",
  ["no divergence"] = "어긋남 없음",
  ["a hang with flight records"] = "flight record 가 남은 hang",
  ["the rank that called differently"] = "다르게 부른 rank",
  ["the rank whose column differs first"] = "열이 처음으로 다른 rank",
  ["the sequence number (#) where the records part"] = "기록이 갈라지는 sequence number (#)",
  ["the # of the first row where a column differs"] = "어느 열이 다른 첫 행의 #",
  ["%s on %d ranks"] = "%s, rank %d 개",
  ["the original %s (for the flight records)"] = "원래의 %s (flight record 용)",
  ["the original %s"] = "원래의 %s",
  ["your %s"] = "내 %s",
  ["flight records of %s (its last collectives per rank)"] = "%s 의 flight record (rank 마다 마지막 collective 들)",
  ["%s on %d ranks did not finish: %s%s"] = "%s 실행이 rank %d 개에서 끝나지 않았다: %s%s",
  ["; flight recorder: %s"] = "; flight recorder: %s",
  ["a hang or an error"] = "hang 또는 error",
  ["every rank finishes"] = "모든 rank 가 끝남",
  ["results pane (3): the flight records"] = "results pane (3): flight record",
  ["%s finished on %d ranks in %.1f s"] = "%s 실행이 rank %d 개에서 %.1f s 만에 끝났다",
  ["finished"] = "끝남",
  ["results pane (3): flight records of %s"] = "results pane (3): %s 의 flight record",

  -- step 1
  ["all_reduce with different shapes: the hang, --timeout and the flight records"] =
    "shape 이 다른 all_reduce: hang, --timeout, flight record",
  ["The table has one column per rank and one row per collective (#). Look for the row where one column differs."] =
    "표는 rank 마다 열 하나, collective (#) 마다 행 하나다. 한 열만 다른 행을 찾는다.",
  ["The count is the number of elements each rank passed; # is the sequence number every rank gives the same collective."] =
    "count 는 각 rank 가 넘긴 element 수다; # 은 모든 rank 가 같은 collective 에 붙이는 sequence number 다.",
  ["Which rank called all_reduce with a different shape?"] = "어느 rank 가 다른 shape 으로 all_reduce 를 불렀나?",
  ["Which sequence number (#) is the collective that never completed?"] =
    "끝내 완료되지 못한 collective 의 sequence number (#) 는?",
  ["the same mismatch, two watchdog timeouts"] = "같은 mismatch, watchdog timeout 두 가지",
  ["the hung all_reduce waited"] = "hang 한 all_reduce 가 기다린 시간",
  ["run ended after"] = "run 종료까지",
  ["reason"] = "이유",
  ["flight records (comm world), one column per rank"] = "flight record (comm world), rank 마다 열 하나",
  ["a longer --timeout waits longer: %.1f s vs %.1f s - the watchdog, not NCCL, decides when a hang ends"] =
    "--timeout 이 길면 더 오래 기다린다: %.1f s 대 %.1f s - hang 이 언제 끝날지는 NCCL 이 아니라 watchdog 이 정한다",
  ["the run with the longer timeout did not wait longer: was it ended by the watchdog?"] =
    "timeout 이 긴 run 이 더 오래 기다리지 않았다: watchdog 이 끝낸 것이 맞나?",
  ["%.1f s and %.1f s"] = "%.1f s 와 %.1f s",
  ["the longer timeout's hang waits longer"] = "timeout 이 긴 쪽의 hang 이 더 오래 기다림",
  ["results pane (3): the first table"] = "results pane (3): 첫 번째 표",

  -- step 2
  ["Blocking wait vs asynchronous error handling"] = "blocking wait 대 비동기 error 처리",
  ["Compare the two tables' 'the call returned after' and 'polls' columns."] =
    "두 mode 의 '호출 return 까지' 와 'poll 횟수' 열을 비교한다.",
  ["On the SIMULATED machine a collective runs on the host: the call itself waits (the step says so)."] =
    "SIMULATED 기계에서는 collective 가 host 에서 돈다: 호출 자체가 기다린다 (step 본문에 있다).",
  ["never: the call itself raised"] = "return 안 함: 호출 자체가 error",
  ["completed, y[0] = %s"] = "완료, y[0] = %s",
  ["what each rank's script saw"] = "각 rank 의 script 가 본 것",
  ["mode"] = "mode",
  ["the call returned after"] = "호출 return 까지",
  ["polls"] = "poll 횟수",
  ["error after"] = "error 까지",
  ["what the script got"] = "script 가 받은 것",
  ["%s: %d of %d ranks' scripts got the watchdog's error and went on"] =
    "%s: rank %d / %d 개의 script 가 watchdog 의 error 를 받고 계속 진행했다",
  ["%d of %d ranks"] = "rank %d / %d 개",
  ["every rank"] = "모든 rank",
  ["async: the call returned at once on %d of %d ranks and the host polled while the collective hung on %d"] =
    "async: rank %d / %d 개에서 호출이 바로 return 했고, collective 가 멈춘 동안 host 가 poll 한 rank 는 %d 개",
  ["%d returned, %d polled"] = "return %d, poll %d",
  ["results pane (3): columns 'the call returned after' and 'polls'"] =
    "results pane (3): '호출 return 까지' 와 'poll 횟수' 열",

  -- step 3
  ["Exercise 1: rank 0 logs its loss"] = "실습 1: rank 0 이 자기 loss 를 log 한다",
  ["In the flight records, find the first # where rank 0's call site (@ line) differs from the others', even if the op and count agree."] =
    "flight record 에서 op 와 count 는 같아도 rank 0 의 호출 위치 (@ 줄) 가 다른 rank 들과 다른 첫 # 을 찾는다.",
  ["A collective is a meeting: if rank 0 all-reduces the loss, every rank must. Only the print is rank 0's."] =
    "collective 는 모임이다: rank 0 이 loss 를 all-reduce 하면 모든 rank 가 해야 한다. rank 0 만의 것은 print 뿐이다.",
  ["Which rank made a collective the others did not?"] = "다른 rank 들이 하지 않은 collective 를 한 rank 는?",
  ["What is that collective's sequence number (#) in its flight record?"] =
    "그 collective 의 flight record 상 sequence number (#) 는?",
  ["gradient checksum after the last step, %d ranks"] = "마지막 step 뒤의 gradient checksum, rank %d 개",
  ["rank 0 logged no loss: the log must stay (every log_every steps)"] =
    "rank 0 이 loss 를 하나도 log 하지 않았다: log 는 남아야 한다 (log_every step 마다)",
  ["0 logged steps"] = "log 한 step 0 개",
  ["the mean loss every log_every steps"] = "log_every step 마다 평균 loss",
  ["rank 0's logged loss vs the mean over %d ranks"] = "rank 0 이 log 한 loss 대 rank %d 개의 평균",

  -- step 4
  ["Exercise 2: a rank with an empty batch"] = "실습 2: batch 가 빈 rank",
  ["The flight records: which rank never made the gradient all_reduce of the last step, and what did it call instead?"] =
    "flight record: 마지막 step 의 gradient all_reduce 를 끝내 하지 않은 rank 는 어느 것이고, 대신 무엇을 불렀나?",
  ["Take the all_reduce out of the `if n > 0`: a rank without samples contributes a zero gradient."] =
    "all_reduce 를 `if n > 0` 밖으로 뺀다: sample 이 없는 rank 는 0 gradient 를 보탠다.",
  ["Which rank skipped the gradient all-reduce?"] = "gradient all-reduce 를 건너뛴 rank 는?",
  ["At which sequence number (#) do the flight records part?"] = "flight record 가 갈라지는 sequence number (#) 는?",
  ["rank %d made %d gradient all-reduces, rank 0 %d"] = "rank %d 의 gradient all-reduce 는 %d 번, rank 0 은 %d 번",
  ["rank %d: a result row without avg and total (keep the script's mgpu.result)"] =
    "rank %d: avg 와 total 이 없는 result 행 (script 의 mgpu.result 는 그대로 둔다)",
  ["step %d, rank %d: average gradient %s, the samples of all ranks give %s"] =
    "step %d, rank %d: 평균 gradient %s, 모든 rank 의 sample 로 계산하면 %s",
  ["%d ranks: every rank averaged every step's gradient over the samples of all ranks"] =
    "rank %d 개: 모든 rank 가 매 step 의 gradient 를 모든 rank 의 sample 로 평균했다",
  ["right on every rank"] = "모든 rank 에서 맞음",
  ["every rank, every step: sum of gradients / samples of all ranks"] =
    "모든 rank, 모든 step: gradient 합 / 모든 rank 의 sample 수",
  ["log pane (5): [rank K] result rows"] = "log pane (5): [rank K] result 행",

  -- step 5
  ["The fingerprint check: caught before anything hangs, and its cost"] =
    "fingerprint check: hang 하기 전에 잡기, 그리고 그 비용",
  ["The log pane has the fingerprint check's sentence for each script: it names the #."] =
    "log pane 에 script 마다 fingerprint check 의 문장이 있다: 거기에 # 이 나온다.",
  ["Which fields does a fingerprint compare? Is the call site one of them?"] =
    "fingerprint 는 어떤 field 를 비교하나? 호출 위치도 그중 하나인가?",
  ["At which # did the fingerprint check stop the original train_log.lua?"] =
    "fingerprint check 는 원래의 train_log.lua 를 몇 번 # 에서 멈췄나?",
  ["How many extra collectives does the check make per collective?"] =
    "check 는 collective 하나마다 collective 를 몇 개 더 부르나?",
  ["%s with MGPU_FINGERPRINT=1"] = "%s, MGPU_FINGERPRINT=1",
  ["%s with the fingerprint check: %s"] = "%s, fingerprint check 켬: %s",
  ["cost: fingerprint off"] = "비용: fingerprint 끔",
  ["cost: fingerprint on"] = "비용: fingerprint 켬",
  ["the original scripts with MGPU_FINGERPRINT=1 (--timeout %d s)"] =
    "MGPU_FINGERPRINT=1 로 돌린 원래 script (--timeout %d s)",
  ["ended after"] = "종료까지",
  ["why"] = "이유",
  ["all_reduce of 1 f32, %s times, rank 0 (host time per collective)"] =
    "f32 1 개 all_reduce, %s 번, rank 0 (collective 당 host 시간)",
  ["us per collective"] = "collective 당 us",
  ["cost of the check"] = "check 의 비용",
  ["%s: refused by the fingerprint check at #%d, before any collective hung: every earlier # completed and the watchdog (%d s) ended nothing"] =
    "%s: 어떤 collective 도 hang 하기 전에 fingerprint check 가 #%d 에서 거부했다: 그 앞의 # 은 모두 완료됐고 watchdog (%d s) 은 아무것도 끝내지 않았다",
  ["%s: refused by the fingerprint check at #%d, but a collective hung first (the watchdog ended it or an earlier # did not complete)"] =
    "%s: fingerprint check 가 #%d 에서 거부했지만 그 전에 collective 가 hang 했다 (watchdog 이 끝냈거나 앞의 # 이 완료되지 않았다)",
  ["%s: not refused by the fingerprint check (%s)"] = "%s: fingerprint check 가 거부하지 않았다 (%s)",
  ["'collective fingerprint mismatch', no collective ended by the watchdog"] =
    "'collective fingerprint mismatch', watchdog 이 끝낸 collective 없음",
  ["measured: %s us per collective without the check, %s with it"] =
    "측정: collective 당 check 없이 %s us, check 와 함께 %s us",
  ["fp_cost.lua did not finish: %s"] = "fp_cost.lua 가 끝나지 않았다: %s",
  ["both measured"] = "둘 다 측정됨",
  ["no measurement"] = "측정 없음",
  ["results pane (3): the second table"] = "results pane (3): 두 번째 표",
  ["the # the check stopped train_log.lua at"] = "check 가 train_log.lua 를 멈춘 #",
  ["the # in the check's sentence"] = "check 의 문장에 나오는 #",
  ["extra collectives per collective"] = "collective 하나당 추가 collective 수",
  ["what the check launches before each collective"] = "check 가 각 collective 앞에 launch 하는 것",
  ["step text: how the check works"] = "step 본문: check 가 동작하는 방식",
}
