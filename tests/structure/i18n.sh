#!/bin/bash
# i18n.sh - every lab, and the check library, is complete in Korean (issue 29;
# docs/lab-authoring.md, "Two languages"):
#  - every step text steps/X.md has steps/X.ko.md with the same Markdown
#    skeleton (as many headings, as many code blocks);
#  - every static field (lab title, summary, backends, step titles, hints,
#    questions' ask) has an entry in the lab's lang/ko.lua;
#  - every L("format", ...) literal in lab.lua and the Lua files beside it
#    that it loads (checks/*.lua for the check
#    library) has an entry with the same placeholders in the same order;
#  - no entry is stale (its English no longer appears) and every catalog loads;
#  - an exercise's Korean twin exercises/NAME.ko.lua (optional: its comments
#    in Korean; a missing one is a note) has the same code, token for token.
# Prints each lab's count of missing items and fails when any is missing.
#
#   bash tests/structure/i18n.sh BIN                    every lab and checks/
#   MGPU_I18N_ONLY=02-allreduce bash tests/structure/i18n.sh BIN
#   MGPU_I18N_ONLY=02-allreduce,checks ...              (a translator's run)
#   MGPU_I18N_VERBOSE=0 ...                              counts only
# BIN (the built mgpulab) reads the labs' static fields exactly as the
# framework does (`mgpulab --lang en list --json`).
set -u
SRC=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${1:-$SRC/build/mgpulab}
LABS=${MGPU_LABS_DIR:-$SRC/labs}
CHECKS=${MGPU_CHECKS_DIR:-$SRC/checks}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -x "$BIN" ]; then
  echo "FAIL: no mgpulab binary at $BIN (give it as the first argument)"
  exit 1
fi
# the framework's view of the static fields; no class configuration, a
# throwaway state, English whatever the caller's locale
env -u MGPULAB_CLASS XDG_CONFIG_HOME="$tmp/config" XDG_STATE_HOME="$tmp/state" LANG=C LC_ALL=C \
  MGPULAB_LABS="$LABS" MGPULAB_CHECKS="$CHECKS" "$BIN" --lang en list --json >"$tmp/list.json" 2>"$tmp/list.err" || {
  echo "FAIL: mgpulab list --json failed:"
  cat "$tmp/list.err"
  exit 1
}
exec python3 - "$LABS" "$CHECKS" "$tmp/list.json" <<'PY'
import json, os, re, sys

labs_dir, checks_dir, list_json = sys.argv[1:4]
only = [s for s in os.environ.get('MGPU_I18N_ONLY', '').split(',') if s]
verbose = os.environ.get('MGPU_I18N_VERBOSE', '1') != '0'

# --- a small Lua lexer: strings (decoded), names, symbols; comments dropped
ESC = {'n': '\n', 't': '\t', 'r': '\r', 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v', '\\': '\\', '"': '"', "'": "'",
       '\n': '\n'}


def lex(text):
    toks, i, n, line = [], 0, len(text), 1
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith('--', i):
            m = re.match(r'--\[(=*)\[', text[i:])
            if m:
                end = text.find(']' + m.group(1) + ']', i)
                end = n if end < 0 else end + len(m.group(1)) + 2
            else:
                end = text.find('\n', i)
                end = n if end < 0 else end
            line += text.count('\n', i, end)
            i = end
        elif c in '"\'':
            j, out = i + 1, []
            while j < n and text[j] != c:
                if text[j] == '\\':
                    e = text[j + 1]
                    if e in ESC:
                        out.append(ESC[e]); j += 2
                    elif e == 'z':
                        j += 2
                        while j < n and text[j].isspace(): j += 1
                    elif e == 'x':
                        out.append(chr(int(text[j + 2:j + 4], 16))); j += 4
                    elif e.isdigit():
                        m = re.match(r'\d{1,3}', text[j + 1:])
                        out.append(chr(int(m.group(0)))); j += 1 + len(m.group(0))
                    elif e == 'u':
                        m = re.match(r'u\{([0-9a-fA-F]+)\}', text[j + 1:])
                        out.append(chr(int(m.group(1), 16))); j += 1 + len(m.group(0))
                    else:
                        out.append(e); j += 2
                else:
                    out.append(text[j]); j += 1
            s = ''.join(out)
            # Lua strings are bytes: \ddd escapes of UTF-8 become the text
            try:
                s = s.encode('latin-1').decode('utf-8')
            except (UnicodeEncodeError, UnicodeDecodeError):
                pass
            toks.append(('str', s, line))
            line += text.count('\n', i, j)
            i = j + 1
        elif c == '[' and re.match(r'\[=*\[', text[i:]):
            m = re.match(r'\[(=*)\[', text[i:])
            start = i + len(m.group(0))
            end = text.find(']' + m.group(1) + ']', start)
            s = text[start:end]
            if s.startswith('\n'): s = s[1:]
            toks.append(('str', s, line))
            line += text.count('\n', i, end)
            i = end + len(m.group(1)) + 2
        elif c.isalpha() or c == '_':
            m = re.match(r'[A-Za-z_][A-Za-z0-9_]*', text[i:])
            toks.append(('name', m.group(0), line)); i += len(m.group(0))
        elif c.isdigit():
            m = re.match(r'0[xX][0-9a-fA-F.]+|[0-9.]+(?:[eE][-+]?\d+)?', text[i:])
            toks.append(('num', m.group(0), line)); i += len(m.group(0))
        else:
            for sym in ('...', '..', '==', '~=', '<=', '>=', '//', '::', '<<', '>>'):
                if text.startswith(sym, i):
                    toks.append(('sym', sym, line)); i += len(sym); break
            else:
                toks.append(('sym', c, line)); i += 1
    return toks


def literal(toks, k):
    """A string literal expression at k ("a" .. "b" .. "c", maybe in
    parentheses): (value, next index, whole) - whole is False when a
    non-literal is concatenated to it. None when toks[k] is no string."""
    if k >= len(toks) or toks[k][0] != 'str':
        return None
    val, k = toks[k][1], k + 1
    while k + 1 < len(toks) and toks[k][1] == '..' and toks[k + 1][0] == 'str':
        val += toks[k + 1][1]
        k += 2
    whole = not (k < len(toks) and toks[k][1] == '..')
    return val, k, whole


def l_calls(path):
    """The format literals of L(...) calls in a Lua file: [(fmt, line)],
    and the lines of L calls whose format is not a literal."""
    toks = lex(open(path, encoding='utf-8').read())
    found, computed = [], []
    global bare
    for k, t in enumerate(toks):
        if t == ('name', 'L', t[2]) and k + 1 < len(toks) and toks[k + 1][1] == '(' and \
                not (k > 0 and toks[k - 1][1] in ('.', ':', 'function', 'local')):
            lit = literal(toks, k + 2)
            if lit and lit[2]:
                found.append((lit[0], t[2]))
            else:
                computed.append(t[2])
        # a verdict's text written as a bare literal: English in Korean too
        if t[0] == 'name' and t[1] in ('msg', 'saw', 'wanted', 'where') and k + 2 < len(toks) and \
                toks[k + 1][1] == '=' and toks[k + 2][0] == 'str' and re.search(r'[A-Za-z]{4,}', toks[k + 2][1]):
            bare.append((t[1], toks[k + 2][1], t[2]))
    return found, computed


def catalog(path):
    """{english: korean} of a lang/ko.lua, or raises ValueError."""
    toks = lex(open(path, encoding='utf-8').read())
    k = 0
    if not (toks and toks[0][1] == 'return' and toks[1][1] == '{'):
        raise ValueError('must be `return { ["English"] = "Korean", ... }`')
    k, out = 2, {}
    while toks[k][1] != '}':
        if toks[k][1] != '[':
            raise ValueError(f'line {toks[k][2]}: expected ["English"] = "Korean"')
        key = literal(toks, k + 1)
        if not key or toks[key[1]][1] != ']' or toks[key[1] + 1][1] != '=':
            raise ValueError(f'line {toks[k][2]}: expected ["English"] = "Korean"')
        val = literal(toks, key[1] + 2)
        if not val or not val[2]:
            raise ValueError(f'line {toks[k][2]}: the Korean must be a string literal')
        if key[0] in out:
            raise ValueError(f'line {toks[k][2]}: "{key[0][:50]}" has two entries')
        out[key[0]] = val[0]
        k = val[1]
        if toks[k][1] in (',', ';'):
            k += 1
    return out


PLACEHOLDER = re.compile(r'%(?:%|[-+ #0]*\d*(?:\.\d+)?[cdiouxXeEfgGqsaA])')


def placeholders(s):
    return PLACEHOLDER.findall(s)


def skeleton(path):
    heads = fences = 0
    inside = False
    for line in open(path, encoding='utf-8'):
        s = line.strip()
        if s.startswith('```') or s.startswith('~~~'):
            fences += not inside
            inside = not inside
        elif not inside and re.match(r'#{1,6}\s', s):
            heads += 1
    return heads, fences


def short(s):
    s = s.replace('\n', ' ')
    return s if len(s) <= 70 else s[:67] + '...'


listing = {l['id']: l for l in json.load(open(list_json))['labs']}
units = sorted(d for d in os.listdir(labs_dir)
               if re.match(r'\d+-', d) and os.path.isfile(os.path.join(labs_dir, d, 'lab.lua')))
units.append('checks')
if only:
    unknown = [o for o in only if o not in units]
    if unknown:
        print(f'FAIL: MGPU_I18N_ONLY names {", ".join(unknown)}; the labs are {", ".join(units)}')
        sys.exit(1)
    units = [u for u in units if u in only]

total = 0
bare = []
for unit in units:
    problems, notes_early = [], []
    if unit == 'checks':
        cat_path = os.path.join(checks_dir, 'lang', 'ko.lua')
        sources = [os.path.join(checks_dir, f) for f in sorted(os.listdir(checks_dir)) if f.endswith('.lua')]
        statics = []
    else:
        d = os.path.join(labs_dir, unit)
        cat_path = os.path.join(d, 'lang', 'ko.lua')
        # lab.lua and the files it loads beside it (lab.load: lab 6's whatif.lua)
        sources = [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith('.lua')]
        info = listing.get(unit)
        if info is None or info.get('load_error'):
            why = info['load_error'].split('\n')[0] if info else 'not listed'
            print(f'{unit}: 1 missing (the lab does not load: {why})')
            total += 1
            continue
        statics = [('lab title', info['title']), ('lab summary', info.get('summary')),
                   ('lab backends', info.get('backends'))]
        for n, s in enumerate(info['steps'], 1):
            statics.append((f'step {n} title', s['title']))
            statics += [(f'step {n} hint {h}', t) for h, t in enumerate(s.get('hints_local', []), 1)]
            statics += [(f'step {n} question {q["id"]}', q['ask']) for q in s.get('questions', [])]
            text = s.get('text')
            if text:
                ko = text[:-3] + '.ko.md' if text.endswith('.md') else None
                rel = os.path.relpath(text, d)
                if not ko or not os.path.exists(ko):
                    problems.append(f'step {n}: no Korean text {os.path.relpath(ko or text + ".ko.md", d)}')
                else:
                    (he, fe), (hk, fk) = skeleton(text), skeleton(ko)
                    if he != hk:
                        problems.append(f'step {n}: {rel} has {he} headings, its .ko.md {hk}')
                    if fe != fk:
                        problems.append(f'step {n}: {rel} has {fe} code blocks, its .ko.md {fk}')
        statics = [(w, t) for w, t in statics if t]
        # exercises/NAME.ko.lua: the same code (tokens), comments in Korean
        exdir = os.path.join(d, 'exercises')
        for f in sorted(os.listdir(exdir)) if os.path.isdir(exdir) else []:
            if f.endswith('.ko.lua'):
                if not os.path.exists(os.path.join(exdir, f[:-7] + '.lua')):
                    problems.append(f'exercises/{f}: no English exercises/{f[:-7]}.lua beside it')
                continue
            if not f.endswith('.lua'):
                continue
            ko = os.path.join(exdir, f[:-4] + '.ko.lua')
            if not os.path.exists(ko):
                notes_early.append(f'exercises/{f}: no Korean twin exercises/{f[:-4]}.ko.lua (its comments stay English)')
            elif [t[:2] for t in lex(open(os.path.join(exdir, f), encoding='utf-8').read())] != \
                    [t[:2] for t in lex(open(ko, encoding='utf-8').read())]:
                problems.append(f'exercises/{f[:-4]}.ko.lua: its code differs from {f}\'s (only comments may)')
    try:
        cat = catalog(cat_path) if os.path.exists(cat_path) else {}
    except (ValueError, IndexError) as e:
        problems.append(f'{os.path.relpath(cat_path, os.path.dirname(labs_dir))}: does not parse: {e}')
        cat = {}
    used, notes = set(), notes_early
    for what, text in statics:
        used.add(text)
        if text not in cat:
            problems.append(f'{what}: no Korean for "{short(text)}"')
    for src in sources:
        found, computed = l_calls(src)
        for fmt, line in found:
            used.add(fmt)
            where = f'{os.path.basename(src)}:{line}'
            if fmt not in cat:
                problems.append(f'{where}: no Korean for L("{short(fmt)}")')
            elif placeholders(fmt) != placeholders(cat[fmt]):
                problems.append(f'{where}: the Korean of "{short(fmt)}" has placeholders {placeholders(cat[fmt])}, '
                                f'the English {placeholders(fmt)}')
        for field, text, line in bare:
            notes.append(f'{os.path.basename(src)}:{line}: {field} = "{short(text)}" is not in L(): '
                         'it stays English (a number or id may; words should not)')
        bare.clear()
        for line in computed:
            problems.append(f'{os.path.basename(src)}:{line}: L() with a format that is not a string literal '
                            '(the catalog cannot be checked against it)')
    for key in cat:
        if key not in used:
            problems.append(f'stale entry (its English is no longer used): "{short(key)}"')
    total += len(problems)
    print(f'{unit}: {len(problems)} missing' + ('' if problems else ' - complete'))
    if verbose:
        for p in problems:
            print(f'  {p}')
        for p in notes:
            print(f'  note: {p}')
if total:
    print(f'FAIL: {total} item(s) missing in Korean (docs/lab-authoring.md, "Two languages")')
    sys.exit(1)
print('ok - every lab and the check library complete in Korean')
PY
