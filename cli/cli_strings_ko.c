/* cli_strings_ko.c - the Korean of what the lab commands (list, run, verify,
 * hint) print for the learner (mgpu/lang.h; issue 29). The English is the
 * key, exactly as the code writes it; placeholders stay the same and in the
 * same order (tests/cli/lang.sh runs the commands in both languages).
 * Ids, states in --json, file names and options are never translated;
 * technical terms stay in Latin script as the lecture note writes them. */
#include "cmd.h"
#include <string.h>

static const mgpu_tr_entry ko[] = {
    /* list */
    {"no labs found\n", "lab 을 찾지 못했다\n"},
    {"BROKEN", "로드 실패"},
    {"%d/%d passed, %d/%d read", "통과 %d/%d, 읽음 %d/%d"},
    {"    runs on: %s\n", "    실행 환경: %s\n"},
    /* run */
    {"LOCKED", "잠김"},
    {"PASS", "통과"},
    {"FAIL", "실패"},
    {"ERROR", "오류"},
    {"CANCELLED", "취소됨"},
    {"READ", "읽음"},
    {"AWAITING", "답 대기"},
    {"NEW", "새 step"},
    {"  answer: mgpulab run %s --step %d --answer ID=VALUE", "  답하기: mgpulab run %s --step %d --answer ID=VALUE"},
    {"  answer: --answer ID=VALUE\n", "  답하기: --answer ID=VALUE\n"},
    {" (waiting: ", " (답을 기다리는 질문: "},
    {"also waits for an answer", "답을 기다리는 질문이 더 있다"},
    {"also failed", "함께 실패"},
    {"[result] bench %s: %zu rows, average busbw %.2f GB/s\n", "[result] bench %s: %zu 행, 평균 busbw %.2f GB/s\n"},
    {"[result] copy: %zu testcase%s\n", "[result] copy: testcase %zu 개%s\n"},
    {"[result] topology of %s: %zu GPUs\n", "[result] %s 의 topology: GPU %zu 개\n"},
    {"every rank finished", "모든 rank 가 끝났다"},
    {"failed", "실패"},
    {" (what-if on the SIMULATED ", " (SIMULATED machine 에서의 what-if: "},
    {"(the step's Korean text is missing: the English follows)\n", "(이 step 의 한국어 글이 아직 없어 영어 원문을 보여 준다)\n"},
    /* hint */
    {"Lab %d step %d/%d (%s) has no exercise, so no solution to show.\n",
     "Lab %d step %d/%d (%s) 에는 exercise 가 없어 보여 줄 solution 도 없다.\n"},
    {"The reference solution of step %d (%s), %s - %s:\n", "step %d (%s) 의 reference solution, %s - %s:\n"},
    {"recorded in your progress as shown", "본 것으로 진행 상황에 기록했다"},
    {"shown, but not recorded in your progress", "보여 주지만 진행 상황에는 기록하지 못했다"},
    {"every step of lab %s is passed; `mgpulab hint %s --step N` shows a step's hints\n",
     "lab %s 의 step 을 모두 통과했다; `mgpulab hint %s --step N` 으로 한 step 의 hint 를 본다\n"},
    {"Lab %d step %d/%d (%s) has no hints.\n", "Lab %d step %d/%d (%s) 에는 hint 가 없다.\n"},
    {"hint %d of %d: %s\n", "hint %d/%d: %s\n"},
    /* verify */
    {"STATE", "상태"},
    {"MESSAGE", "메시지"},
    {"(did not load)", "(로드 실패)"},
    {"passed on %s, not on this machine (%s): its verdict depends on the machine - mgpulab verify %s %s%s%s\n",
     "%s 에서 통과했지만 이 machine (%s) 에서는 아니다: verdict 가 machine 에 따라 다르다 - mgpulab verify %s %s%s%s\n"},
    {" checks it there", " 로 그곳에서 확인한다"},
    {" on ", " 를 다음 host 에서: "},
    {" (%d wait%s for answers)", " (답을 기다리는 step %d 개%s)"},
    {"%d of %d checked steps passed%s; %d of %d reading steps read%s\n",
     "check 가 있는 step %d/%d 통과%s; 읽기 step %d/%d 읽음%s\n"},
    {" (cancelled)", " (취소됨)"},
    /* state names in verify's table (JSON keeps mgpu_step_state_name) */
    {"new", "새 step"},
    {"passed", "통과"},
    {"error", "오류"},
    {"cancelled", "취소됨"},
    {"read", "읽음"},
    {"awaiting", "답 대기"},
};

const char *cli_tr(const char *en)
{
    return mgpu_tr_in(ko, sizeof ko / sizeof ko[0], en);
}

/* Columns a UTF-8 string takes in a terminal: East Asian wide characters
 * (Hangul, CJK, fullwidth forms) two, combining marks none, others one. A
 * simple table is enough for what the labs print; no locale needed. */
static int cp_width(unsigned cp)
{
    if (cp >= 0x0300 && cp <= 0x036F) return 0;
    if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
        (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
        (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD))
        return 2;
    return 1;
}

/* The code point at p and its length in bytes; a byte that starts no
 * sequence counts as one character of its own. */
static int next_cp(const unsigned char *p, unsigned *cp)
{
    unsigned c = *p;
    int n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
    *cp = n > 1 ? c & (0xFF >> (n + 1)) : c;
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            *cp = c;
            return 1;
        }
        *cp = (*cp << 6) | (p[i] & 0x3F);
    }
    return n;
}

int cli_text_width(const char *s)
{
    int w = 0;
    unsigned cp;
    for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
        p += next_cp(p, &cp);
        w += cp_width(cp);
    }
    return w;
}

int cli_text_cut(char *s, int cols)
{
    int w = 0;
    unsigned cp;
    for (unsigned char *p = (unsigned char *)s; *p;) {
        int n = next_cp(p, &cp);
        if (w + cp_width(cp) > cols) {
            *p = '\0';
            return 1;
        }
        w += cp_width(cp);
        p += n;
    }
    return 0;
}

void cli_print_padded(FILE *f, const char *s, int width)
{
    fputs(s, f);
    for (int w = cli_text_width(s); w < width; w++) fputc(' ', f);
}
