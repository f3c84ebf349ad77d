return {
  ["Hangul layout"] = "한글 레이아웃 시험: 목록에서 잘리지 않고 줄바꿈되어야 하는 아주 긴 lab 제목",
  ["Wide characters in the lists, the text, tables and the verdict"] = "넓은 문자가 목록, 본문, 표, 판정 상자에서 반으로 잘리지 않는지 본다",
  ["sim and cuda"] = "sim과 cuda",
  ["A table and long lines"] = "표와 긴 줄: 한 글자가 두 칸을 차지하는 본문",
  ["Mixed cells wrap in narrow columns"] = "한글과 Latin이 섞인 칸이 좁은 열에서 줄바꿈된다",
  ["What share of the data does each rank send in a ring all-reduce?"] = "링 all-reduce에서 각 rank는 데이터의 몇 분의 몇을 보내는가?",
  ["A long verdict"] = "긴 판정",
  ["the busbw of all-reduce is %s of the peak; this sentence is longer than one row of the box"] =
    "all-reduce의 busbw가 최고치의 %s이다. 이 문장은 판정 상자의 한 줄보다 길어서 줄바꿈되어야 하며 글자가 반으로 잘리면 안 된다",
  ["measured %s"] = "측정한 값 %s",
  ["at least %s"] = "%s 이상",
  ["the busbw column of the results pane"] = "결과 pane의 busbw 열",
}
