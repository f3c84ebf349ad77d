/* shell_strings_ko.c - the shell's own strings in Korean (issue 29): one
 * table of {English exactly as the code writes it, Korean}, looked up by
 * tr() (shell_strings.h). Keys, ids and technical terms stay in Latin
 * script as the lecture note writes them (lab, step, check, hint, pane,
 * backend, all-reduce ...); placeholders are the same and in the same
 * order (test_shell_strings checks every entry). A string the code wraps
 * in tr() with no entry here shows in English (test_shell_strings lists
 * the literals of shell/ and fails on one missing). */
#include "shell_strings.h"

/* The key help (?): here beside its Korean so the two are kept together. */
const char shell_help_text[] =
    "A letter means the same everywhere; only the arrows follow focus.\n"
    "Focus (shown as \"> \" in a frame's title)\n"
    "  Tab / Shift-Tab  move focus: labs, steps, text, pane\n"
    "  Left/Right       move focus between labs, steps and text;\n"
    "                   in the pane: scroll it sideways\n"
    "  Up/Down, j/k     move in the focused list; scroll text or pane\n"
    "  PgUp/PgDn, Space page the text; Home/End: the first / last\n"
    "                   lab or step in a list, top / bottom elsewhere\n"
    "  Esc              back: pane or text -> steps -> labs\n"
    "  Enter            open the selected lab / run the selected step\n"
    "Steps\n"
    "  r                run the selected step (run, then check)\n"    "  n                the next step (after a pass, the next one to do)\n"
    "  v                the whole verdict: every check with what it\n"
    "                   saw, wanted and where to look; the traceback\n"
    "  c                cancel the running step (the shell stays up)\n"
    "  e                edit the exercise in $EDITOR (default vi);\n"
    "                   saving it re-runs the check (watch mode)\n"
    "  h                the next hint\n"
    "  S                the reference solution of the step's exercise\n"
    "                   (asks first; your progress records it)\n"
    "  a                answer the step's questions; your last answer\n"
    "                   comes up selected: Enter keeps it, typing\n"
    "                   replaces it, Backspace / Ctrl-U clear it,\n"
    "                   Right / End edit it at its end\n"
    "  x                reset the lab's exercises and progress (asks)\n"
    "Panes (1-5 shows one and focuses it)\n"
    "  1 topology       g matrix / graph; arrows scroll both ways\n"
    "  2 bandwidth      live link bandwidth; Up/Down scroll\n"
    "  3 results        g chart / table, b algbw in the chart,\n"
    "                   keys [ and ]: previous / next document;\n"
    "                   arrows scroll\n"
    "  4 timeline       i / o zoom in / out, Left/Right scroll, f fit\n"
    "  5 log            s summary on/off; arrows, PgUp/PgDn; End follows\n"
    "  + / -            make the pane taller / shorter\n"
    "  z                maximise the pane to the whole screen (again,\n"
    "                   or Esc: back)\n"
    "Mouse\n"
    "  click a lab or step to select it, a pane's title to show it;\n"
    "  the wheel scrolls what is under the pointer\n"
    "Other\n"
    "  L                Korean / English: the lists, the step's text, its\n"
    "                   hints and questions in the other language\n"
    "  ?                this help\n"
    "  q                quit (asks when a step is running)\n";

static const char help_ko[] =
    "글자 키는 어디서나 같은 일을 한다. 화살표만 focus를 따른다.\n"
    "Focus (frame 제목 앞의 \"> \"가 focus를 보여 준다)\n"
    "  Tab / Shift-Tab  focus 이동: lab 목록, step 목록, 본문, pane\n"
    "  Left/Right       lab 목록, step 목록, 본문 사이에서 focus 이동.\n"
    "                   pane에서는 옆으로 스크롤\n"
    "  Up/Down, j/k     focus가 있는 목록에서 이동, 본문이나 pane 스크롤\n"
    "  PgUp/PgDn, Space 본문을 한 쪽씩 넘긴다. Home/End: 목록에서는\n"
    "                   처음 / 마지막 항목, 그 밖에서는 맨 위 / 맨 아래\n"
    "  Esc              뒤로: pane이나 본문 -> step 목록 -> lab 목록\n"
    "  Enter            선택한 lab을 열거나 선택한 step을 실행\n"
    "Step\n"
    "  r                선택한 step 실행 (실행한 뒤 check)\n"
    "  n                다음 step (통과한 뒤에는 다음에 할 step)\n"
    "  v                판정 전체: 모든 check가 본 값, 원한 값,\n"
    "                   볼 곳, 그리고 traceback\n"
    "  c                실행 중인 step 취소 (shell은 그대로 남는다)\n"
    "  e                exercise를 $EDITOR(기본 vi)로 편집.\n"
    "                   저장하면 check가 다시 돈다 (watch mode)\n"
    "  h                다음 hint\n"
    "  S                step exercise의 참고 해답 (먼저 묻고,\n"
    "                   진행 기록에 남는다)\n"
    "  a                step의 질문에 답한다. 마지막 답이 선택된\n"
    "                   채로 뜬다: Enter는 그대로 두고, 입력하면\n"
    "                   바뀌고, Backspace / Ctrl-U는 지우고,\n"
    "                   Right / End는 끝에서 이어 고친다\n"
    "  x                lab의 exercise와 진행 기록 초기화 (먼저 묻는다)\n"
    "Pane (1-5: pane을 보이고 focus를 준다)\n"
    "  1 topology       g matrix / graph. 화살표로 상하좌우 스크롤\n"
    "  2 bandwidth      link bandwidth 실시간. Up/Down 스크롤\n"
    "  3 results        g chart / table, b chart에 algbw 표시,\n"
    "                   [ 와 ]: 이전 / 다음 문서,\n"
    "                   화살표로 스크롤\n"
    "  4 timeline       i / o 확대 / 축소, Left/Right 스크롤, f 맞춤\n"
    "  5 log            s 요약 켜기/끄기, 화살표, PgUp/PgDn,\n"
    "                   End는 새 줄을 따라간다\n"
    "  + / -            pane을 높이거나 낮춘다\n"
    "  z                pane을 화면 전체로 키운다 (다시 누르거나\n"
    "                   Esc: 되돌리기)\n"
    "마우스\n"
    "  lab이나 step을 클릭하면 선택, pane 제목을 클릭하면 그 pane.\n"
    "  휠은 포인터 아래를 스크롤한다\n"
    "그 밖\n"
    "  L                한국어 / English: 목록, step 본문, hint와 질문을\n"
    "                   다른 언어로 다시 그린다\n"
    "  ?                이 도움말\n"
    "  q                종료 (step이 실행 중이면 먼저 묻는다)\n";

const mgpu_tr_entry shell_strings_ko[] = {
    {shell_help_text, help_ko},
    {"no labs are loaded",
     "불러온 lab이 없다"},
    {"%s: wait for the running step to finish (c cancels it)",
     "%s: 실행 중인 step이 끝날 때까지 기다린다 (c로 취소)"},
    {"This lab did not load",
     "이 lab을 불러오지 못했다"},
    {"this lab has no steps",
     "이 lab에는 step이 없다"},
    {"The step could not start",
     "step을 시작하지 못했다"},
    {"open a lab first (Enter)",
     "먼저 lab을 연다 (Enter)"},
    {"this is the lab's last step; Esc goes to the lab list",
     "이 lab의 마지막 step이다. Esc는 lab 목록으로 간다"},
    {"step %d: %s - read it, then r runs it",
     "step %d: %s - 읽은 뒤 r로 실행한다"},
    {"nothing is running",
     "실행 중인 것이 없다"},
    {"cancelling...",
     "취소하는 중..."},
    {"open a lab and select a step first",
     "먼저 lab을 열고 step을 선택한다"},
    {"step \"%s\" has no exercise to edit",
     "step \"%s\"에는 편집할 exercise가 없다"},
    {"No exercise file yet",
     "exercise 파일이 아직 없다"},
    {"%s does not exist yet (%s).\nRun the step once (r): the lab copies its exercises into your workspace on first use.",
     "%s 파일이 아직 없다 (%s).\nstep을 한 번 실행한다 (r): lab은 처음 쓸 때 exercise를 작업 공간에 복사한다."},
    {"Editor",
     "편집기"},
    {"cannot start %s: %s",
     "%s을(를) 시작할 수 없다: %s"},
    {"%s exited with status %d",
     "%s이(가) 상태 %d로 끝났다"},
    {"back from %s; a saved change re-runs the check",
     "%s에서 돌아왔다. 저장한 변경이 있으면 check가 다시 돈다"},
    {"Hint",
     "Hint"},
    {"This step has no hints.",
     "이 step에는 hint가 없다."},
    {"step %d has no exercise, so no solution to show",
     "step %d에는 exercise가 없으므로 보여 줄 해답도 없다"},
    {"Show the reference solution of %s? The hints (h) lead to it without the code. Your progress records that you saw it.",
     "%s의 참고 해답을 볼까? hint(h)는 코드 없이 그곳으로 이끈다. 해답을 본 것은 진행 기록에 남는다."},
    {"No solution",
     "해답 없음"},
    {"Solution: %s (%s)",
     "해답: %s (%s)"},
    {"the exercise",
     "exercise"},
    {"recorded in your progress",
     "진행 기록에 남김"},
    {"NOT recorded: the progress could not be saved",
     "기록하지 못함: 진행 기록을 저장할 수 없었다"},
    {"Question %d/%d (Enter saves, Esc cancels)",
     "질문 %d/%d (Enter 저장, Esc 취소)"},
    {"this step asks no questions",
     "이 step에는 질문이 없다"},
    {"The answer was not saved",
     "답을 저장하지 못했다"},
    {"answers saved and checked against the last measurement; r measures again",
     "답을 저장하고 마지막 측정으로 check했다. r은 다시 측정한다"},
    {"Reset failed",
     "초기화 실패"},
    {"%s reset: exercises back to the originals (old copies kept as .bak), progress forgotten",
     "%s 초기화: exercise는 원본으로 돌아가고 (옛 사본은 .bak로 남는다) 진행 기록은 지워졌다"},
    {"language: English (L: Korean)",
     "언어: 한국어 (L: English)"},
    {"Help: keys (j/k, PgUp/PgDn scroll; other keys close)",
     "도움말: 키 (j/k, PgUp/PgDn 스크롤, 다른 키는 닫기)"},
    {"Confirm (y/n)",
     "확인 (y/n)"},
    {"y: yes    n / Esc: no",
     "y: 예    n / Esc: 아니오"},
    {"your last answer: Enter keeps it, typing replaces it, End edits it",
     "마지막 답: Enter는 유지, 입력하면 바뀜, End는 이어 고침"},
    {"answer not saved",
     "답을 저장하지 않았다"},
    {" Enter run  c cancel  e edit  h hint  ? help  q quit ",
     " Enter 실행  c 취소  e 편집  h hint  ? 도움말  q 종료 "},
    {"Labs",
     "Lab 목록"},
    {"loading labs...",
     "lab을 불러오는 중..."},
    {"no labs found",
     "lab을 찾지 못했다"},
    {"Steps",
     "Step"},
    {"Enter opens the selected lab",
     "Enter: 선택한 lab 열기"},
    {"this lab did not load",
     "이 lab을 불러오지 못했다"},
    {"Enter open/run  v verdict  e edit  h hint  a answer  Tab focus  ? help",
     "Enter 열기/실행  v 판정  e 편집  h hint  a 답  Tab focus  ? 도움말"},
    {"cancelling",
     "취소 중"},
    {"running",
     "실행 중"},
    {"step",
     "step"},
    {"  %.1f s   c cancel ",
     "  %.1f s   c 취소 "},
    {"mgpulab needs at least %dx%d; this terminal is %dx%d",
     "mgpulab은 최소 %dx%d가 필요하다. 이 터미널은 %dx%d이다"},
    {"Loading the labs...",
     "lab을 불러오는 중..."},
    {"No labs",
     "lab 없음"},
    {"# %s did not load\n\n```\n%s\n```\n",
     "# %s을(를) 불러오지 못했다\n\n```\n%s\n```\n"},
    {"# %d. %s\n\n%s\n\n*Runs on:* %s\n\n",
     "# %d. %s\n\n%s\n\n*실행 환경:* %s\n\n"},
    {"every backend",
     "모든 backend"},
    {"(passed)",
     "(통과)"},
    {"(read)",
     "(읽음)"},
    {"\nPress **Enter** to open the lab.\n",
     "\n**Enter**를 누르면 lab이 열린다.\n"},
    {"*(cannot read %s)*\n",
     "*(%s을(를) 읽을 수 없다)*\n"},
    {"\n\n---\n\n**Exercise:** `%s` (press **e** to edit; saving re-runs the check)\n",
     "\n\n---\n\n**Exercise:** `%s` (**e**로 편집한다. 저장하면 check가 다시 돈다)\n"},
    {"\n\n## Questions (press a to answer)\n\n",
     "\n\n## 질문 (a를 눌러 답한다)\n\n"},
    {"- %s  \n  answer: %s\n",
     "- %s  \n  답: %s\n"},
    {"*(none yet)*",
     "*(아직 없음)*"},
    {"About",
     "소개"},
    {"no panes are built into this shell",
     "이 shell에는 pane이 없다"},
    {"A step is running. Cancel it and quit?",
     "step이 실행 중이다. 취소하고 종료할까?"},
    {"Reset",
     "초기화"},
    {"A step is running: its record would be written over the reset. c cancels it, then x resets.",
     "step이 실행 중이다: 그 기록이 초기화 위에 덮어 쓰인다. c로 취소한 뒤 x로 초기화한다."},
    {"Reset lab %s? Its exercise files go back to the originals (your copies are kept as FILE.bak) and its progress is forgotten.",
     "lab %s을(를) 초기화할까? exercise 파일은 원본으로 돌아가고 (고친 사본은 FILE.bak로 남는다) 진행 기록은 지워진다."},
    {"Your progress",
     "진행 기록"},
    {"live link counters are off: %s",
     "실시간 link counter가 꺼져 있다: %s"},
    {"saved: the check runs again when this step ends",
     "저장됨: 이 step이 끝나면 check가 다시 돈다"},
    {"saved: running the check",
     "저장됨: check 실행 중"},
    {"poll: %s",
     "poll: %s"},
    {"cancelling the running step before quitting...",
     "종료하기 전에 실행 중인 step을 취소하는 중..."},
    {"telemetry: %s",
     "telemetry: %s"},
    {"topology: cannot start a thread for the query",
     "topology: 조회할 thread를 시작할 수 없다"},
    {"PASS",
     "통과"},
    {"FAIL",
     "실패"},
    {"ERROR",
     "오류"},
    {"CANCELLED",
     "취소됨"},
    {"READ",
     "읽음"},
    {"AWAITING",
     "답 대기"},
    {"NOT RUN",
     "실행 전"},
    {"saw:",
     "본 값:"},
    {"wanted:",
     "원한 값:"},
    {"where:",
     "볼 곳:"},
    {"Verdict (running...)",
     "판정 (실행 중...)"},
    {"Verdict  v: all of it",
     "판정  v: 전체 보기"},
    {"Verdict",
     "판정"},
    {"(in Korean)",
     "(한국어로 만든 판정)"},
    {"(in English)",
     "(English로 만든 판정)"},
    {"  (%.1f s)",
     "  (%.1f s)"},
    {"  (last run, %.1f s)",
     "  (마지막 실행, %.1f s)"},
    {"   press a to answer",
     "   a를 눌러 답한다"},
    {"   the step stays passed (its best result)",
     "   step은 통과 상태로 남는다 (가장 좋은 결과)"},
    {"   latest attempt: %s",
     "   마지막 시도: %s"},
    {"... more: press v for the whole verdict",
     "... 더 있음: v를 누르면 판정 전체"},
    {"\nChecks: %zu of %zu failed",
     "\nCheck: %zu개 중 %zu개 실패"},
    {"\nChecks: %zu passed",
     "\nCheck: %zu개 통과"},
    {"; 1 question waits for your answer (a)",
     ". 질문 1개가 답을 기다린다 (a)"},
    {"; %zu questions wait for your answers (a)",
     ". 질문 %zu개가 답을 기다린다 (a)"},
    {"(no message)",
     "(메시지 없음)"},
    {"no verdict yet: r runs the step",
     "아직 판정이 없다: r로 step을 실행한다"},
    {"(a new run of this step is under way: this is the last verdict; the view\n shows the new one when the run ends)\n\n",
     "(이 step을 새로 실행하는 중이다: 이것은 마지막 판정이다. 실행이 끝나면\n 새 판정을 보여 준다)\n\n"},
    {"(this verdict was made in Korean; r runs the step again)\n\n",
     "(이 판정은 한국어로 만들어졌다. r로 step을 다시 실행한다)\n\n"},
    {"(this verdict was made in English; r runs the step again)\n\n",
     "(이 판정은 English로 만들어졌다. r로 step을 다시 실행하면 한국어로 나온다)\n\n"},
    {"\nTraceback:\n%s\n",
     "\nTraceback:\n%s\n"},
    {"%s (last run, %.1f s)\n\n%s\n\nRun the step again (r) for every check's details.\n",
     "%s (마지막 실행, %.1f s)\n\n%s\n\n모든 check의 자세한 내용은 step을 다시 실행하면 (r) 나온다.\n"},
    {"Verdict: %s (j/k, PgUp/PgDn scroll; other keys close)",
     "판정: %s (j/k, PgUp/PgDn 스크롤, 다른 키는 닫기)"},
    {"the step could not run: %s",
     "step을 실행할 수 없었다: %s"},
    {"%s: %s (%.1f s)",
     "%s: %s (%.1f s)"},
    {"step ended",
     "step 끝남"},
    {"step failed to run",
     "step 실행 실패"},
    {"step ended: %s (%.1f s) - n: next step, %d %s",
     "step 끝남: %s (%.1f s) - n: 다음 step, %d %s"},
    {"step ended: measured; its questions wait for your answers (press a)",
     "step 끝남: 측정했다. 질문이 답을 기다린다 (a를 누른다)"},
    {"topology: %s",
     "topology: %s"},
    {"Bandwidth",
     "Bandwidth"},
    {"Log",
     "Log"},
    {"Results", /* as the labs' Korean names it: "results pane (3)" */
     "Results"},
    {"Timeline",
     "Timeline"},
    {"Topology",
     "Topology"},
    {"new",
     "새 step"},
    {"passed",
     "통과"},
    {"failed",
     "실패"},
    {"error",
     "오류"},
    {"cancelled",
     "취소됨"},
    {"read",
     "읽음"},
    {"awaiting",
     "답 대기"},
    {"No live link counters here: the numbers need NVML (the NVIDIA driver) or the sim backend's modelled load. Results and timeline still work.",
     "여기에는 실시간 link counter가 없다: 이 숫자에는 NVML(NVIDIA driver)이나 sim backend가 모델링한 부하가 필요하다. 결과와 timeline은 그대로 된다."},
    {"nothing yet: run a step that moves data (a bench or a copy) to see NVLink/PCIe traffic",
     "아직 없음: 데이터를 옮기는 step(bench나 copy)을 실행하면 NVLink/PCIe traffic이 보인다"},
    {"(not reported)",
     "(보고 없음)"},
    {"nothing yet: run a step that runs ranks (a bench or an SPMD script) to see its log",
     "아직 없음: rank를 돌리는 step(bench나 SPMD script)을 실행하면 그 log가 보인다"},
    {"(no rows: the run measured nothing)",
     "(행 없음: 이 실행은 아무것도 측정하지 않았다)"},
    {"nothing yet: run a step that measures something (a bench, a copy, a check's table)",
     "아직 없음: 무언가를 측정하는 step(bench, copy, check의 표)을 실행한다"},
    {"nothing yet: run a step that records a timeline (streams, events, DDP overlap)",
     "아직 없음: timeline을 기록하는 step(stream, event, DDP overlap)을 실행한다"},
    {"(too narrow for a timeline)",
     "(timeline을 그리기에 너무 좁다)"},
    {"nothing yet: run a step that reads the topology (lab 1) to see the matrix",
     "아직 없음: topology를 읽는 step(lab 1)을 실행하면 matrix가 보인다"},
    {"%s  [g] %s  arrows/PgUp/PgDn scroll%s",
     "%s  [g] %s  화살표/PgUp/PgDn 스크롤%s"},
    {"  (focus the pane to scroll)",
     "  (pane에 focus를 주면 스크롤)"},
    {"GB/s: highest of the last 5 s; lines: last %d samples, full = NVLink %.0f / PCIe %.0f%s GB/s",
     "GB/s: 최근 5 s의 최고치. 선: 최근 표본 %d개, 가득 찬 칸 = NVLink %.0f / PCIe %.0f%s GB/s"},
    {"NICn: the GPU's share of the traffic between nodes, through its node's NICn (also in its PCIe)",
     "NICn: 노드 사이 traffic 중 그 GPU의 몫, 그 노드의 NICn을 거친다 (그 GPU의 PCIe에도 들어 있다)"},
    {" log  [s] summary  arrows/PgUp/PgDn scroll  End follows ",
     " log  [s] 요약  화살표/PgUp/PgDn 스크롤  End 끝 따라가기 "},
    {"(untitled table)",
     "(제목 없는 표)"},
    {"(out-of-place; -> for the full table)",
     "(out-of-place. ->를 누르면 표 전체)"},
    {" %d above, %d below ",
     " 위 %d개, 아래 %d개 "},
    {" %d more above ",
     " 위에 %d개 더 "},
    {" %d more below ",
     " 아래에 %d개 더 "},
};
const size_t shell_strings_ko_count = sizeof shell_strings_ko / sizeof shell_strings_ko[0];

const char *tr(const char *en)
{
    /* the help is looked up by its address: it is no literal the linker
     * might merge, and comparing it whole on every frame is wasted work */
    if (en == shell_help_text) return mgpu_lang_get() == MGPU_LANG_KO ? help_ko : shell_help_text;
    return mgpu_tr_in(shell_strings_ko, shell_strings_ko_count, en);
}

const char *shell_lang_other_name(void) { return mgpu_lang_get() == MGPU_LANG_KO ? "English" : "한국어"; }
