#!/bin/bash
# shell_korean.sh - the shell in Korean (issue 29), at 80x24 and 120x40:
# Hangul takes two columns a character, and no character may be cut in half
# at a frame or a column bar. The fixture lab (tests/shell/labs-ko) has a
# step with a Hangul table and long lines, one with a five-column table of
# mixed cells, and a check with a long verdict, in both languages. L
# switches the language and back: the lists, the step's text and the shell's
# own strings redraw; a verdict keeps the language it was made in and says
# so. C.UTF-8 suffices for wide characters (no ko_KR locale is generated).
source "$(dirname "$0")/tmux_lib.bash" "$1"
export MGPULAB_LABS="$SRC/tests/shell/labs-ko"
# tmux and the shell both decide UTF-8 from the locale; English at start
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset LC_MESSAGES

# check_grid W H: the screen is whole - every row between the top bar and
# the status line is exactly W columns and ends on a frame, no U+FFFD (a
# character cut in half) anywhere, and the column where the left lists end
# holds a frame character on every row: a wide character cut at a border
# would shift it. Columns by East Asian Width, as a terminal counts them.
check_grid() {
    local w=$1 h=$2
    screen | python3 -c '
import sys, unicodedata
w, h = int(sys.argv[1]), int(sys.argv[2])
rows = sys.stdin.read().split("\n")[:h]
def cells(line):
    out = []
    for ch in line:
        out.append(ch)
        if unicodedata.east_asian_width(ch) in "WF":
            out.append("")  # the second column of a wide character
    return out
frame = set("│┌┐└┘├┤─")
bad = []
left = None
for y in range(1, h - 1):
    line = rows[y] if y < len(rows) else ""
    if "\ufffd" in line:
        bad.append(f"row {y}: a character cut in half: {line!r}")
    c = cells(line)
    if len(c) != w:
        bad.append(f"row {y} is {len(c)} columns, not {w}: {line!r}")
    elif c[-1] not in frame:
        bad.append(f"row {y} does not end on a frame: {line!r}")
    if y == 1:
        left = next((x for x, ch in enumerate(c) if ch == "┐"), None)
    elif left is not None and (len(c) <= left or c[left] not in frame):
        bad.append(f"row {y}: no frame at column {left}: {line!r}")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
' "$w" "$h" >"$TMPD/grid" || fail "the screen is not whole at ${w}x${h}: $(cat "$TMPD/grid")"
}

# bars_aligned WORD...: the table rows holding each WORD have their column
# bars at the same display columns (the header's).
bars_aligned() {
    screen | python3 -c '
import sys, unicodedata
words = sys.argv[1:]
def bars(line):
    col, out = 0, []
    for ch in line:
        if ch == "|" or ch == "+":
            out.append(col)
        col += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return out
lines = sys.stdin.read().split("\n")
found = []
for word in words:
    hit = [l for l in lines if word in l]
    if not hit:
        print(f"no row holds {word!r}")
        sys.exit(1)
    found.append((word, bars(hit[0])))
first = found[0][1]
for word, b in found[1:]:
    if b != first:
        print(f"the bars of the {word!r} row {b} are not the header row bars {first}")
        sys.exit(1)
' "$@" >"$TMPD/bars" || fail "table columns out of line: $(cat "$TMPD/bars")"
}

# page_until REGEX: PgDn through the focused text until the screen shows it,
# every page whole.
page_until() {
    for _ in $(seq 1 12); do
        check_grid "$W" "$H"
        screen | grep -Eq -- "$1" && return 0
        keys PgDn
        sleep 0.2
    done
    wait_for "$1" 5
}

for size in "80 24" "120 40"; do
    read -r W H <<<"$size"
    rm -rf "$XDG_STATE_HOME/mgpulab"
    start_shell "$W" "$H" --backend sim --machine dgx-h100
    wait_for '0 Hangul layout' 20
    wait_for ' L 한국어 *$' 5 # the key, in the language it switches to
    check_grid "$W" "$H"
    keys Enter
    wait_for '> Steps: 00-hangul' 5
    wait_for 'press L to read it' 5

    # L: Korean. The shell's strings, the lists and the step's text redraw
    keys L
    wait_for '언어: 한국어 \(L: English\)' 5
    wait_for '┌─ Lab 목록 ─' 5
    wait_for '> Step: 00-hangul' 5
    wait_for '│\[ \] 0 한글 레이아웃 +0/1│' 5
    wait_for '\( \) 1 표와 긴 줄' 5
    wait_for '│ 표와 긴 줄 +│' 5
    check_grid "$W" "$H"
    ok "${W}x${H}: L switches to Korean; lists and text redraw whole"

    # the lab title is longer than its four rows at 80 columns: cut with
    # the ellipsis, by display width
    if [ "$W" = 80 ]; then
        wait_for '│      줄바꿈되어야 하는…│' 5
        ok "${W}x${H}: a Korean title too long for the list ends with …"
    fi

    # the step's text: the long lines wrap by display width, the table keeps
    # its bars in line, every page whole
    keys Tab
    wait_for '─ > 표와 긴 줄' 5
    page_until '한 방향 대역폭'
    page_until 'NV18 +\| NVSwitch를'
    bars_aligned '한 방향 대역폭' 'NV18' '-+-'
    page_until '이어지는한글낱말의끝'
    check_grid "$W" "$H"
    ok "${W}x${H}: a Korean step with a table and long lines wraps without cutting a character"

    # five columns of mixed cells in the text area's width
    keys Escape Home j
    wait_for '─ 섞인 칸|─ 한글과 Latin이' 5
    keys Tab
    page_until '순위 +\| 통신 방식'
    bars_aligned '순위' '첫째' '-+-'
    check_grid "$W" "$H"
    ok "${W}x${H}: a five-column Hangul table lines up its bars"

    # the verdict: a long Korean message wraps in the box, the whole verdict
    # in the v view with its labels lined up by display width
    # a step the lab has no Korean for: the English, marked, and a line
    # above its text that says so
    keys Escape End
    wait_for '\[en\] Not translated' 5
    wait_for '\[en\] 이 단계의 한국어 글이 아직 없어' 5
    check_grid "$W" "$H"
    ok "${W}x${H}: an untranslated step shows its English, marked"

    keys k
    wait_for '\(\*\) 3 긴 판정|\[ \] 3 긴 판정' 5
    keys r
    wait_for '실패 +\(' 30
    wait_for '판정  v: 전체 보기' 5
    wait_for '│ all-reduce의 busbw가 최고치의 15 %이다\.' 5
    check_grid "$W" "$H"
    keys v
    wait_for '판정: 긴 판정' 5
    wait_for '본 값: +측정한 값 12\.5 GB/s' 5
    wait_for '원한 값: +80 % 이상' 5
    wait_for '볼 곳: +결과 pane의 busbw 열' 5
    # the labels stand in one column: the values start at the same column
    screen | python3 -c '
import sys, unicodedata
cols = []
for l in sys.stdin.read().split("\n"):
    for lab in ("본 값:", "원한 값:", "볼 곳:"):
        if lab in l:
            i = l.index(lab) + len(lab)
            while l[i] == " ":
                i += 1
            cols.append(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l[:i]))
sys.exit(0 if len(cols) == 3 and len(set(cols)) == 1 else 1)
' || fail "the verdict's labels are not in one column"
    keys q
    wait_gone '판정: 긴 판정' 5
    ok "${W}x${H}: the verdict box and view in Korean"

    # the help lists the language key
    keys '?'
    wait_for '도움말: 키' 5
    for _ in 1 2 3 4 5 6; do keys PgDn; done
    wait_for 'L +한국어 / English' 5
    keys Escape
    wait_gone '도움말: 키' 5

    # L back: English; the verdict stays as it was made and says so
    keys L
    wait_for 'language: English \(L: Korean\)' 5
    wait_for '┌─ Labs ─' 5
    wait_for '\[!\] 0 Hangul layout +0/1' 5
    wait_for '\[!\] 3 A long verdict' 5
    wait_for 'Verdict  v: all of it  \(in Korean\)' 5
    wait_for '│ FAIL +\(' 5
    check_grid "$W" "$H"
    keys v
    wait_for 'this verdict was made in Korean' 5
    keys q
    ok "${W}x${H}: L switches back to English; the Korean verdict says it is Korean"

    keys q
    wait_exit "$SHELL_PID" 10
done

# --lang ko starts in Korean; the status line offers English
start_shell 80 24 --lang ko --backend sim --machine dgx-h100
wait_for '┌─ > Lab 목록 ─' 20
wait_for ' L English *$' 5
check_grid 80 24
keys q
wait_exit "$SHELL_PID" 10
ok "--lang ko starts the shell in Korean"

# LANG=ko_KR.UTF-8 where that locale was never generated (a fresh Debian
# has only C.UTF-8): Korean from LANG, and still a UTF-8 screen (the shell
# falls back to C.UTF-8 for the characters; in the C locale every Hangul
# byte and frame line came out as garbage)
tm kill-session -t main 2>/dev/null
tm new-session -d -s main -x 80 -y 24 "exec env -u LC_ALL -u LC_MESSAGES -u LC_CTYPE LANG=ko_KR.UTF-8 NO_COLOR=1 \
XDG_STATE_HOME=$XDG_STATE_HOME MGPULAB_LABS=$MGPULAB_LABS TERM=tmux-256color TMPDIR=$TMPD \
$(printf '%q ' "$BIN") --backend sim --machine dgx-h100" || fail "tmux did not start"
SHELL_PID=$(tm display-message -p -t main '#{pane_pid}')
wait_for '┌─ > Lab 목록 ─' 20
wait_for '│\[.\] 0 한글 레이아웃 +0/1│' 5
check_grid 80 24
keys q
wait_exit "$SHELL_PID" 10
ok "LANG=ko_KR.UTF-8 with no such locale: Korean, on a whole UTF-8 screen"
