#!/bin/bash
# lab_log_lines.sh - a lab's log lines are tagged by the front end ("[lab] "
# headless and in the log pane), so a lab that writes the tag itself shows
# "[lab] [lab] ..." (issue 26); and a count beside "nodes"/"ranks"/"GPUs"
# that may be 1 is said in the singular then ("1 nodes" was printed).
SRC=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
LABS=${MGPU_LABS_DIR:-$SRC/labs}
exec python3 - "$LABS" <<'PY'
import os, re, sys
labs = sys.argv[1]
# lab.log("[lab] ...") or lab.log(string.format("[lab] ...", ...))
tagged = re.compile(r'lab\.log\(\s*(string\.format\(\s*)?["\']\[lab\]')
# "%s nodes" / "%d nodes" filled from a value the lab does not know is > 1
plural = re.compile(r'%[sd] nodes\b')
bad = []
for root, _, files in os.walk(labs):
    for f in sorted(files):
        if not f.endswith('.lua'):
            continue
        path = os.path.join(root, f)
        rel = os.path.relpath(path, labs)
        for n, line in enumerate(open(path, encoding='utf-8'), 1):
            if tagged.search(line):
                bad.append(f'{rel}:{n}: lab.log with its own "[lab] " tag (the front end adds it)')
            if plural.search(line) and 'lab.log' in line:
                bad.append(f'{rel}:{n}: "N nodes" in a log line: one node is "1 node"')
for b in bad:
    print('FAIL: ' + b)
print(('ok' if not bad else 'not ok') + ' - lab log lines carry no "[lab] " tag of their own and say "1 node"')
sys.exit(1 if bad else 0)
PY
