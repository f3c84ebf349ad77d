-- checks/lang/ko.lua - the Korean of the check library's messages
-- (checks/values.lua, checks/traces.lua): the English format exactly as
-- the check writes it in L(...) -> its Korean, with the same placeholders
-- in the same order (docs/lab-authoring.md, "Two languages";
-- tests/structure/i18n.sh checks it). Technical terms stay in Latin script
-- as the lecture note writes them; the pane names are the shell's.
return {
  -- shared
  ["nothing (nil)"] = "없음 (nil)",
  ["a table of %d entries"] = "항목 %d 개짜리 table",
  ["%s: the check got %s instead of a table of arguments"] = "%s: check 가 받은 것이 인자 table 이 아니다: %s",
  ["a table such as %s{value = ..., ...}"] = "%s{value = ..., ...} 같은 table",
  ["a table of arguments"] = "인자 table",
  ["the lab's check function"] = "lab 의 check 함수",
  ["results pane"] = "results pane",
  ["%s: not answered yet"] = "%s: 아직 답하지 않았다",
  ["no answer yet"] = "아직 답 없음",
  ["your reading of %s"] = "%s 에서 읽은 값",

  -- checks.bandwidth
  ["bandwidth"] = "bandwidth",
  ["%s: the fraction of peak to reach is %s, not a number in (0, 100]"] =
    "%s: 도달할 peak 비율이 %s 이다; (0, 100] 안의 수여야 한다",
  ["a fraction such as 0.8"] = "0.8 같은 비율",
  [" of %s"] = ", %s",
  ["%s: no usable peak%s to compare with (got %s)"] = "%s: 비교할 peak%s 없음 (받은 값: %s)",
  ["a peak > 0 %s"] = "0 %s 보다 큰 peak",
  [">= %s (%s %% of %s%s)"] = ">= %s (%s %%, 기준 %s%s)",
  ["%s: no measured value (got %s)"] = "%s: 측정값이 없다 (받은 값: %s)",
  ["%s: a negative bandwidth (%s) is not a measurement"] = "%s: 음수 bandwidth (%s) - 측정값이 될 수 없다",
  ["the %s%s"] = "%s%s",
  [">= %s (%.2fx %s)"] = ">= %s (%.2fx × %s)",
  ["%s: %s is %.2fx %s (wanted at least %.2fx)"] = "%s: %s, 곧 %.2fx (기준 %s; 원한 것은 최소 %.2fx)",
  ["%s: %s is only %.2fx %s; wanted at least %.2fx (%s)"] =
    "%s: %s, 곧 %.2fx 에 그친다 (기준 %s); 원한 것은 최소 %.2fx (%s)",
  ["%s: %s; the bar is %s"] = "%s: %s; 기준선은 %s",
  ["%s: only %s; the bar is %s"] = "%s: %s 에 그친다; 기준선은 %s",
  ["%s (%s %% of peak)"] = "%s (peak 의 %s %%)",
  ["%s: %s reaches %s %% of the %s peak%s (wanted at least %s %%)"] =
    "%s: %s, %s %% 에 도달했다 (%s peak%s 대비; 원한 것은 최소 %s %%)",
  ["%s: %s is only %s %% of the %s peak%s; wanted at least %s %% (%s)"] =
    "%s: %s, %s %% 에 그친다 (%s peak%s 대비); 원한 것은 최소 %s %% (%s)",

  -- checks.close
  ["value"] = "값",
  ["%s: tolerances must be numbers >= 0 (rtol %s, atol %s)"] = "%s: 허용 오차는 0 이상의 수여야 한다 (rtol %s, atol %s)",
  ["valid tolerances"] = "올바른 허용 오차",
  [" exactly"] = " (정확히)",
  ["no expected number (%s)"] = "기대하는 수가 없다 (%s)",
  ["no number (%s)"] = "수가 아니다 (%s)",
  ["%s: expected a list of %d numbers, got %s"] = "%s: 수 %d 개의 list 를 기대했는데 받은 것은 %s",
  ["%d numbers"] = "수 %d 개",
  ["%s: nothing to compare (the expected list is empty)"] = "%s: 비교할 것이 없다 (기대 list 가 비어 있다)",
  ["at least one value"] = "값 하나 이상",
  ["%s: %d values, but %d were expected"] = "%s: 값이 %d 개인데 %d 개를 기대했다",
  ["%d values"] = "값 %d 개",
  ["%s at %s"] = "%s (%s)",
  ["%s: all %d values match (largest difference %s, at %s)"] = "%s: 값 %d 개가 모두 맞다 (가장 큰 차이 %s, %s 에서)",
  ["%s: %d of %d values are off; the worst is %s where %s was expected%s"] =
    "%s: 값 %d/%d 개가 어긋난다; 가장 많이 어긋난 것은 %s (기대값 %s)%s",
  [", got %s"] = ", 받은 값 %s",
  ["within %s of the value in %s"] = "%s 이내로 %s 의 값과 같을 것",
  ["%s: %s is right (within %s)"] = "%s: %s - 맞다 (%s 이내)",
  ["too high"] = "너무 크다",
  ["too low"] = "너무 작다",
  ["too high by far"] = "훨씬 크다",
  ["too low by far"] = "훨씬 작다",
  ["%s: %s is %s (more than %s off) - look again at %s"] = "%s: %s - %s (%s 넘게 어긋난다); %s 에서 다시 확인한다",
  ["%s: no value yet - %s"] = "%s: 아직 값이 없다 - %s",
  ["a number"] = "수",
  ["a number (the lab gave %s)"] = "수 (lab 이 준 값: %s)",
  ["%s: %s matches %s"] = "%s: %s - %s 에 맞는다",
  ["%s: %s is off by %s from %s"] = "%s: %s - %s 만큼 벗어났다 (기준 %s)",

  -- checks.equals
  ["%s: the lab gave no acceptable value"] = "%s: lab 이 허용하는 값을 주지 않았다",
  ["(nothing)"] = "(없음)",
  ["one of %s"] = "%s 중 하나",
  ["yes"] = "yes (예)",
  ["no"] = "no (아니오)",
  ["%s: the lab could not work out the expected value"] = "%s: lab 이 기대값을 구하지 못했다",
  ["(unknown)"] = "(알 수 없음)",
  ["the value shown in %s"] = "%s 에 보이는 값",
  ["%s: no value yet"] = "%s: 아직 값이 없다",
  ["%s: %s is not right - look again at %s"] = "%s: %s - 맞지 않다; %s 에서 다시 확인한다",
  ["%s: %s is right"] = "%s: %s - 맞다",
  ["%s: %s is not %s"] = "%s: %s - 원한 것은 %s",

  -- checks.identical
  ["results pane, one row per rank"] = "results pane, rank 마다 한 행",
  ["%s: no values from the ranks (got %s)"] = "%s: rank 에서 온 값이 없다 (받은 값: %s)",
  ["one value per rank"] = "rank 마다 값 하나",
  ["%s: %d of %d ranks gave no value (rank %s)"] = "%s: rank %d/%d 개가 값을 주지 않았다 (rank %s)",
  ["%d equal values"] = "같은 값 %d 개",
  ["%s: no rank gave a value"] = "%s: 값을 준 rank 가 없다",
  ["%s: only one value, nothing to compare it with"] = "%s: 값이 하나뿐이라 비교할 대상이 없다",
  ["1 value"] = "값 1 개",
  ["2 or more ranks"] = "rank 2 개 이상",
  ["%s: all %d ranks agree (%s)"] = "%s: rank %d 개가 모두 같다 (%s)",
  ["%s on every rank"] = "모든 rank 에서 %s",
  ["the same value on every rank"] = "모든 rank 에서 같은 값",
  ["%s: the ranks disagree - %d different values (%s)"] = "%s: rank 마다 값이 다르다 - 서로 다른 값 %d 개 (%s)",

  -- checks.all
  ["checks.all: no verdicts to combine"] = "checks.all: 합칠 verdict 가 없다",
  ["0 verdicts"] = "verdict 0 개",
  ["at least one verdict"] = "verdict 하나 이상",
  ["verdict %d is %s, not a verdict"] = "verdict %d: %s - verdict 가 아니다",
  ["a verdict table"] = "verdict table",
  [" (1 question waits for your answer)"] = " (답을 기다리는 질문 1 개)",
  [" (%d questions wait for your answers)"] = " (답을 기다리는 질문 %d 개)",
  ["%d of %d checks failed%s: %s"] = "check %d 개 실패 (전체 %d 개)%s: %s",
  ["1 question not answered yet: %s"] = "아직 답하지 않은 질문 1 개: %s",
  ["%d questions not answered yet: %s"] = "아직 답하지 않은 질문 %d 개: %s",
  ["all %d checks passed: %s"] = "check %d 개 모두 통과: %s",

  -- checks.count
  ["timeline pane / flight record"] = "timeline pane / flight record",
  ["calls of %s"] = "%s 호출",
  ["%s: which event to count was not given (op = %s)"] = "%s: 셀 event 가 주어지지 않았다 (op = %s)",
  ["an op name"] = "op 이름",
  ["at least %s x %s"] = "최소 %s x %s",
  ["%s: the expected count is %s, not a number >= 0"] = "%s: 기대 횟수가 %s 이다; 0 이상의 수여야 한다",
  ["%s: no events to count (got %s); did the run record a trace?"] =
    "%s: 셀 event 가 없다 (받은 값: %s); 실행이 trace 를 기록했는가?",
  ["no trace"] = "trace 없음",
  ["%d x %s (of %d events)"] = "%d x %s (event %d 개 중)",
  [" Other events: %s."] = " 다른 event: %s.",
  ["%s: %d, as wanted (%s)."] = "%s: %d, 원한 대로다 (%s).",
  ["%s: %d, but %s wanted."] = "%s: %d; 원한 것은 %s.",

  -- checks.overlap
  ["timeline pane"] = "timeline pane",
  ["%s overlapping %s"] = "%s 의 overlap (상대: %s)",
  ["%s: the span names to compare were not given (a = %s, b = %s)"] =
    "%s: 비교할 span 이름이 주어지지 않았다 (a = %s, b = %s)",
  ["two span names"] = "span 이름 두 개",
  ["%s: min_fraction %s is not in [0, 1]"] = "%s: min_fraction %s - [0, 1] 안에 있지 않다",
  ["a fraction"] = "비율",
  [">= %s %% of %s's time"] = ">= %s %% (%s 시간 대비)",
  ["%s: no timeline spans (got %s)"] = "%s: timeline span 이 없다 (받은 값: %s)",
  ["no spans"] = "span 없음",
  ["%s: no %s spans with a duration on the timeline"] = "%s: timeline 에 길이가 있는 %s span 이 없다",
  ["0 us of %s"] = "%s 0 us",
  ["%s %% (%s of %s us)"] = "%s %% (%s / %s us)",
  ["%s: %s %% of %s's time runs while %s runs (wanted %s)"] = "%s: %s %% (%s 시간 중 %s 실행과 겹친 비율; 원한 것: %s)",
  ["%s: only %s %% of %s's time runs while %s runs (wanted %s)"] =
    "%s: %s %% 에 그친다 (%s 시간 중 %s 실행과 겹친 비율; 원한 것: %s)",

  -- checks.hang_caught
  ["log pane: the watchdog's message and the flight recorder's analysis"] =
    "log pane: watchdog 의 메시지와 flight recorder 의 분석",
  ["ended by the watchdog within %s, mismatch named"] = "%s 안에 watchdog 가 끝내고 mismatch 를 짚을 것",
  ["hang_caught: `within` is %s, not a number of seconds"] = "hang_caught: `within` 이 %s 이다; 초 단위의 수여야 한다",
  ["hang_caught: no run report (got %s)"] = "hang_caught: 실행 report 가 없다 (받은 값: %s)",
  ["no report"] = "report 없음",
  ["hang_caught: the run finished normally - nothing hung, so there was nothing to catch"] =
    "hang_caught: 실행이 정상으로 끝났다 - 멈춘 것이 없으니 잡을 것도 없다",
  ["the run completed"] = "실행이 끝까지 돌았다",
  ["ended after %s"] = "%s 뒤에 끝남",
  ["no duration in the report"] = "report 에 걸린 시간이 없다",
  ["analysis: %s"] = "분석: %s",
  ["no analysis"] = "분석 없음",
  ["hang_caught: the run failed, but not by a timeout or abort: %s"] =
    "hang_caught: 실행은 실패했지만 timeout 이나 abort 때문이 아니다: %s",
  ["hang_caught: the report does not say how long the run took"] = "hang_caught: report 에 실행이 얼마나 걸렸는지 없다",
  ["hang_caught: the hang was ended after %s, later than %s"] = "hang_caught: hang 이 %s 뒤에야 끝났다; %s 보다 늦다",
  ["hang_caught: the watchdog ended the run but no analysis named the mismatch"] =
    "hang_caught: watchdog 가 실행을 끝냈지만 mismatch 를 짚은 분석이 없다",
  ["hang_caught: the analysis does not name %s: %s"] = "hang_caught: 분석이 짚어야 할 것: %s; 분석: %s",
  ["hang_caught: the watchdog ended the hang after %s (limit %s) and named it: %s"] =
    "hang_caught: watchdog 가 %s 뒤에 hang 을 끝내고 (한도 %s) 원인을 짚었다: %s",

  -- checks.no_race
  ["log pane (5): the RACE lines"] = "log pane (5): RACE 줄",
  ["the run"] = "실행",
  ["no_race: no run report (got %s)"] = "no_race: 실행 report 가 없다 (받은 값: %s)",
  ["no race"] = "race 없음",
  ["%s: no stream-ordering race"] = "%s: stream-ordering race 없음",
  ["%s: 1 stream-ordering race; the first: %s"] = "%s: stream-ordering race 1 개; 첫 번째: %s",
  ["%s: %d stream-ordering races; the first: %s"] = "%s: stream-ordering race %d 개; 첫 번째: %s",
}
