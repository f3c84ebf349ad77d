#!/bin/bash
# labs_english.sh - the labs' texts are English (issue 10, item 12): Korean
# from the lecture note appears only in a Markdown quote ("> ...") that also
# carries its translation, a line "(*...*)" without Hangul; and a text names
# only labs that exist (lab N needs labs/0N-* or labs/N-*). The Korean of a
# lab (steps/*.ko.md, lang/ko.lua) is not read here: i18n.sh checks it.
SRC=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
LABS=${MGPU_LABS_DIR:-$SRC/labs}
exec python3 - "$LABS" <<'PY'
import os, re, sys
labs = sys.argv[1]
hangul = re.compile('[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]')
existing = {int(m.group(1)) for d in os.listdir(labs) if (m := re.match(r'(\d+)-', d))}
lab_ref = re.compile(r'\b[Ll]ab (\d+)\b')
bad = []
for root, _, files in os.walk(labs):
    for f in sorted(files):
        if not f.endswith(('.md', '.lua')):
            continue
        # the Korean of a lab (issue 29) lives apart: steps/*.ko.md,
        # exercises/*.ko.lua, lang/*.lua; tests/structure/i18n.sh checks those
        if f.endswith(('.ko.md', '.ko.lua')) or os.path.basename(root) == 'lang':
            continue
        path = os.path.join(root, f)
        rel = os.path.relpath(path, labs)
        lines = open(path, encoding='utf-8').read().split('\n')
        quote = []  # the open blockquote: (line number, text)
        def close_quote():
            if any(hangul.search(t) for _, t in quote) and not any(
                    not hangul.search(t) and '(*' in t for _, t in quote):
                bad.append(f'{rel}:{quote[0][0]}: a quote from the note without its translation '
                           '(a "> (*...*)" line in the same quote)')
            quote.clear()
        for n, line in enumerate(lines, 1):
            is_quote = f.endswith('.md') and line.lstrip().startswith('>')
            if is_quote:
                quote.append((n, line))
            else:
                close_quote()
                if hangul.search(line):
                    bad.append(f'{rel}:{n}: Korean outside a marked quote: {line.strip()[:70]}')
            for m in lab_ref.finditer(line):
                if int(m.group(1)) not in existing:
                    bad.append(f'{rel}:{n}: names lab {m.group(1)}, which does not exist: {line.strip()[:70]}')
        close_quote()
for b in bad:
    print('FAIL: ' + b)
if bad:
    sys.exit(1)
print('ok - lab texts: Korean only in translated quotes, only existing labs named')
PY
