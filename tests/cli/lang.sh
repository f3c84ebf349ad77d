#!/usr/bin/env bash
# lang.sh - the labs in Korean, switchable with English (issue 29): --lang,
# LANG/LC_MESSAGES/LC_ALL and the class configuration's pin choose the
# language; a step's title, text (.ko.md), hints, the check library's and
# the lab's L() messages and the verdict words follow it, also in the step
# runner's child; a missing .ko.md shows the English under a marker, a
# missing catalog entry the English marked "[en] "; --json keeps English ids
# beside the *_local texts; a malformed catalog is a clear lab error.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config
unset MGPULAB_CLASS LC_ALL LC_MESSAGES
export LANG=C
sim=(--backend sim --machine dgx-h100)
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
run() { # run OUTFILE ARGS... -> sets rc
  local out=$1; shift
  "$bin" "$@" >"$out" 2>&1; rc=$?
}
run_env() { # run_env OUTFILE VAR=VALUE... -- ARGS...: the locale through env(1),
  local out=$1 vars=(); shift   # so bash does not try (and warn about) it itself
  while [ "$1" != "--" ]; do vars+=("$1"); shift; done; shift
  env "${vars[@]}" "$bin" "$@" >"$out" 2>&1; rc=$?
}
has() { grep -qF -- "$2" "$1"; }
want() { # want FILE TEXT WHAT: FILE holds TEXT
  has "$1" "$2" && ok || { bad "$3: no '$2' in:"; sed 's/^/    /' "$1"; }
}
lacks() { # lacks FILE TEXT WHAT
  has "$1" "$2" && { bad "$3: '$2' should not be in:"; sed 's/^/    /' "$1"; } || ok
}
rc_is() { [ "$rc" -eq "$1" ] && ok || { bad "$2: exit $rc, wanted $1"; sed 's/^/    /' "$3"; }; }

# a lab in both languages (step 2 has no Korean text), the real check library
labs=$tmp/labs
mkdir -p "$labs/01-lang/steps" "$labs/01-lang/lang"
cat >"$labs/01-lang/lab.lua" <<'EOF'
return {
  title = "Language test", summary = "Both languages",
  steps = {
    { id = "one", title = "First step", text = "steps/01-one.md",
      hints = { "Look at the value", "A hint nobody translated" },
      questions = { { id = "q", ask = "How many ranks?" } },
      run = function(lab) print(L("ran on %d ranks", 2)) end,
      check = function(lab)
        return { checks.close{ value = 3, expected = 2, what = L("the value"), where = L("the results pane") },
                 { ok = false, msg = L("a %s with the wrong placeholder", "message"), saw = "", wanted = "", where = "" } }
      end },
    { id = "two", title = "Second step", text = "steps/02-two.md", exercise = "ex.lua", run = function(lab) end },
  },
}
EOF
printf '# One\n\nThe English text of step one.\n\n```\nmgpulab run 1\n```\n' >"$labs/01-lang/steps/01-one.md"
printf '# 하나\n\n첫 step 의 한국어 글.\n\n```\nmgpulab run 1\n```\n' >"$labs/01-lang/steps/01-one.ko.md"
printf '# Two\n\nThe English text of step two.\n' >"$labs/01-lang/steps/02-two.md"
mkdir -p "$labs/01-lang/exercises"
printf -- '-- fill in the sum\nreturn 1 + 1\n' >"$labs/01-lang/exercises/ex.lua"
printf -- '-- 합을 채운다\nreturn 1 + 1\n' >"$labs/01-lang/exercises/ex.ko.lua"
cat >"$labs/01-lang/lang/ko.lua" <<'EOF'
return {
  ["Language test"] = "언어 시험",
  ["First step"] = "첫 step",
  ["Look at the value"] = "값을 본다",
  ["How many ranks?"] = "rank 는 몇 개인가?",
  ["ran on %d ranks"] = "rank %d 개에서 돌았다",
  ["the value"] = "그 값",
  ["the results pane"] = "results pane 에서",
  ["a %s with the wrong placeholder"] = "자리표시가 틀린 %d",
}
EOF
export MGPULAB_LABS=$labs MGPULAB_CHECKS=$src/checks

# --lang ko: title, text, L() in the run's log, the check library's message,
# the framework's summary and the verdict word are Korean; an entry whose
# placeholders do not take the arguments falls back to the English, marked
run "$tmp/ko" --lang ko run 1 --step 1 --text "${sim[@]}"
rc_is 0 "run --lang ko" "$tmp/ko"
want "$tmp/ko" "== Lab 1 step 1/2: 첫 step" "Korean step title"
want "$tmp/ko" "첫 step 의 한국어 글." "the .ko.md text"
lacks "$tmp/ko" "The English text of step one" "the English text under --lang ko"
want "$tmp/ko" "[lab] rank 2 개에서 돌았다" "L() in the run (the runner child's language)"
want "$tmp/ko" "실패 check 2 개 실패 (전체 2 개)" "the verdict word and the framework's summary"
want "$tmp/ko" "그 값: 3 - 1 만큼 벗어났다" "the check library's message (checks/lang/ko.lua)"
want "$tmp/ko" "[en] a message with the wrong placeholder" "a bad entry falls back to the English, marked"
want "$tmp/ko" "where: results pane 에서" "where in Korean"

# the learner's first copy of an exercise is its Korean twin (exercises/NAME.ko.lua);
# a reset in English brings the English one
work=$XDG_STATE_HOME/mgpulab/work/01-lang
want "$work/ex.lua" "-- 합을 채운다" "the Korean exercise copied into the workspace"
run "$tmp/reset" --lang en reset 1
want "$work/ex.lua" "-- fill in the sum" "reset in English: the English exercise"

# LANG=ko_KR.UTF-8 chooses Korean; --lang en beats it; LC_MESSAGES beats LANG
run_env "$tmp/env" LANG=ko_KR.UTF-8 -- run 1 --step 1 "${sim[@]}"
want "$tmp/env" "== Lab 1 step 1/2: 첫 step" "LANG=ko_KR.UTF-8 gives Korean"
want "$tmp/env" "그 값: 3 - 1 만큼" "LANG=ko_KR.UTF-8: the check's message"
run_env "$tmp/en" LANG=ko_KR.UTF-8 -- --lang en run 1 --step 1 "${sim[@]}"
want "$tmp/en" "== Lab 1 step 1/2: First step" "--lang en under a Korean LANG"
want "$tmp/en" "FAIL 2 of 2 checks failed" "--lang en: the English summary"
want "$tmp/en" "the value: 3 is off by 1" "--lang en: the English check message"
lacks "$tmp/en" "[en]" "--lang en: no marker"
run_env "$tmp/msgs" LANG=ko_KR.UTF-8 LC_MESSAGES=C -- run 1 --step 1 "${sim[@]}"
want "$tmp/msgs" "First step" "LC_MESSAGES=C before LANG"
run_env "$tmp/all" LANG=C LC_ALL=ko_KR.UTF-8 -- run 1 --step 1 "${sim[@]}"
want "$tmp/all" "첫 step" "LC_ALL before LANG"

# a step without its .ko.md: the English text under a marker
run "$tmp/two" --lang ko run 1 --step 2 --text "${sim[@]}"
want "$tmp/two" "한국어 글이 아직 없어 영어 원문을" "the missing-text marker"
want "$tmp/two" "The English text of step two." "the English text of a step without .ko.md"
want "$tmp/two" "== Lab 1 step 2/2: [en] Second step" "an untranslated title is marked"
want "$tmp/two" "읽음 실행함" "a reading step's verdict in Korean"

# hints: Korean, and the English marked where the catalog lacks one
run "$tmp/h1" --lang ko hint 1 --step 1
want "$tmp/h1" "hint 1/2: 값을 본다" "the first hint in Korean"
run "$tmp/h2" --lang ko hint 1 --step 1
want "$tmp/h2" "hint 2/2: [en] A hint nobody translated" "an untranslated hint, marked"
run "$tmp/h3" --lang en hint 1 --step 1
want "$tmp/h3" "hint 1 of 2: Look at the value" "hint in English"

# list and verify
run "$tmp/list" --lang ko list
want "$tmp/list" "언어 시험" "list: the Korean title"
want "$tmp/list" "통과 0/1, 읽음" "list: the counts in Korean"
run "$tmp/verify" --lang ko verify 1 "${sim[@]}"
want "$tmp/verify" "상태" "verify: the Korean header"
want "$tmp/verify" "check 가 있는 step 0/1 통과" "verify: the Korean total"

# --json: English ids and fields, "lang", the *_local texts beside
run "$tmp/json" --lang ko run 1 --step 1 --json "${sim[@]}"
python3 - "$tmp/json" <<'PY' && ok || bad "run --json in Korean"
import json, sys
d = json.load(open(sys.argv[1]))
s = d['steps'][0]
assert d['lang'] == 'ko' and d['title'] == 'Language test' and d['title_local'] == '언어 시험', d
assert s['id'] == 'one' and s['state'] == 'failed' and s['title'] == 'First step' and s['title_local'] == '첫 step', s
assert s['lang'] == 'ko' and '그 값' in s['message'], s
PY
run "$tmp/ljson" --lang ko list --json
python3 - "$tmp/ljson" <<'PY' && ok || bad "list --json in Korean"
import json, sys
d = json.load(open(sys.argv[1]))
lab = d['labs'][0]
st = lab['steps'][0]
assert d['lang'] == 'ko' and lab['title'] == 'Language test' and lab['title_local'] == '언어 시험', lab
assert st['hints_local'] == ['값을 본다', '[en] A hint nobody translated'], st
assert st['questions'][0]['ask'] == 'How many ranks?' and st['questions'][0]['ask_local'] == 'rank 는 몇 개인가?', st
assert lab['steps'][1]['text_missing'] is True and st['text_missing'] is False, lab
PY

# the class configuration pins the language; --lang still wins; a bad pin is refused
printf '{"name": "Korean class", "lang": "ko"}\n' >"$tmp/class.json"
MGPULAB_CLASS=$tmp/class.json run "$tmp/cls" run 1 --step 1 "${sim[@]}"
want "$tmp/cls" "첫 step" "the class's pin"
MGPULAB_CLASS=$tmp/class.json LANG=C run "$tmp/cls2" --lang en run 1 --step 1 "${sim[@]}"
want "$tmp/cls2" "First step" "--lang en beats the class's pin"
printf '{"name": "typo", "lang": "kr"}\n' >"$tmp/bad-class.json"
MGPULAB_CLASS=$tmp/bad-class.json run "$tmp/cls3" list
rc_is 2 "a class pin that is no language" "$tmp/cls3"
want "$tmp/cls3" '"lang" must be "en" or "ko"' "the bad pin's message"

# --lang that is no language
run "$tmp/xx" --lang kr list
rc_is 2 "--lang kr" "$tmp/xx"
want "$tmp/xx" "--lang: 'kr' is not a language; use en (English) or ko" "--lang kr's message"

# a malformed catalog: a clear lab error naming the file and the entry, in
# either language; the other labs still load
cp -r "$labs/01-lang" "$labs/02-broken"
printf 'return { ["Language test"] = 42 }\n' >"$labs/02-broken/lang/ko.lua"
run "$tmp/broken" list
want "$tmp/broken" 'labs/02-broken/lang/ko.lua: the entry for "Language test" is a number; it must be the Korean text, a string' \
  "a malformed catalog in list"
want "$tmp/broken" "Language test" "the good lab beside the broken one"
run "$tmp/broken2" run 2 "${sim[@]}"
rc_is 1 "run of a lab with a malformed catalog" "$tmp/broken2"
want "$tmp/broken2" "did not load" "run: the lab error"
printf 'return { ["x"] = os.exit() }\n' >"$labs/02-broken/lang/ko.lua"
run "$tmp/broken3" list
want "$tmp/broken3" "labs/02-broken/lang/ko.lua:1: attempt to index a nil value (global 'os')" \
  "a catalog is data: no libraries"
printf 'return "ko"\n' >"$labs/02-broken/lang/ko.lua"
run "$tmp/broken4" list
want "$tmp/broken4" "labs/02-broken/lang/ko.lua must return a plain table" "a catalog that is no table"
printf 'return { ["x"] = "\\xff" }\n' >"$labs/02-broken/lang/ko.lua"
run "$tmp/broken5" list
want "$tmp/broken5" 'the entry for "x" is not valid UTF-8' "a catalog entry that is not UTF-8"
rm -r "$labs/02-broken"

# a malformed checks catalog: a warning, and the checks speak English
mkdir -p "$tmp/checks/lang"
cp "$src"/checks/*.lua "$tmp/checks/"
printf 'return { ["x"] = true }\n' >"$tmp/checks/lang/ko.lua"
MGPULAB_CHECKS=$tmp/checks run "$tmp/cw" --lang ko run 1 --step 1 "${sim[@]}"
want "$tmp/cw" "checks/lang/ko.lua" "a broken checks catalog is named"
want "$tmp/cw" "[en] 그 값: 3 is off by 1" "without it the checks' messages are English, marked"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
