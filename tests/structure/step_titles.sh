#!/bin/bash
# step_titles.sh - a step's title is its name, not its number: the front
# ends number the steps ("== Lab 9 step 5/7: ...", the step list's "5 "), so
# a title that numbers itself showed twice ("5 5. P2P disabled", issue 26).
# The same for the first heading of a step's text.
SRC=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
LABS=${MGPU_LABS_DIR:-$SRC/labs}
exec python3 - "$LABS" <<'PY'
import glob, os, re, sys
labs = sys.argv[1]
numbered = re.compile(r'^\s*\d+[.)]\s')
bad = []
for lab in sorted(glob.glob(os.path.join(labs, '[0-9][0-9]-*', 'lab.lua'))):
    rel = os.path.relpath(lab, labs)
    for n, line in enumerate(open(lab, encoding='utf-8'), 1):
        m = re.search(r'\bid\s*=\s*"[^"]*",\s*title\s*=\s*"([^"]*)"', line)
        if m and numbered.match(m.group(1)):
            bad.append(f'{rel}:{n}: step title "{m.group(1)}" numbers itself')
for md in sorted(glob.glob(os.path.join(labs, '[0-9][0-9]-*', 'steps', '*.md'))):
    first = next((l for l in open(md, encoding='utf-8') if l.startswith('# ')), '')
    if numbered.match(first[2:]):
        bad.append(f'{os.path.relpath(md, labs)}: heading "{first.strip()}" numbers itself')
for b in bad:
    print('FAIL: ' + b)
print(('ok' if not bad else 'not ok') + ' - step titles and headings do not number themselves')
sys.exit(1 if bad else 0)
PY
