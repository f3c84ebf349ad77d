#!/usr/bin/env bash
# trace_bounds.sh - `spmd --trace` of a script that makes spans without end
# (issue 34): the coordinator kept every span in memory until the run ended
# (600k spans: 2.2 GB) and wrote them all (163 MB). Now spans stream to the
# file as they arrive, the file keeps the first MGPU_CHROME_TRACE_MAX_SPANS
# (250000), and what was dropped is said in the file's otherData, on
# stderr and in --json.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
# two ranks of 130,000 fills: 260,000 spans, 10,000 past the cap
echo 'local t = mgpu.tensor(16)
for i = 1, 130000 do t:fill{value = i} end
mgpu.synchronize()' >many.lua
/usr/bin/time -f "maxrss %M" -o rss timeout -s KILL 300 "$bin" spmd many.lua --backend sim --ranks 2 \
  --trace "$tmp/t.json" >out 2>&1 </dev/null; rc=$?
kb=$(awk '/maxrss/ {print $2}' rss 2>/dev/null)
# the release build held 490 MB for these spans and now 12 MB; a sanitized
# build's RSS is its quarantine's (freed memory held back), not the trace's
limit=200000
ldd "$bin" 2>/dev/null | grep -q libasan && limit=999999999
[ $rc -eq 0 ] && has out "trace kept the first 250000 spans; 10000 later ones were dropped" &&
  has out "^# trace: $tmp/t.json \(250000 spans, the first of more" && [ "${kb:-999999999}" -lt $limit ] && ok ||
  { bad "260k spans: exit $rc, max RSS ${kb:-?} KiB"; cat out; }
python3 - t.json <<'PY' && ok || bad "the trace file of 260k spans"
import json, sys
d = json.load(open(sys.argv[1]))
xs = [e for e in d["traceEvents"] if e["ph"] == "X"]
assert len(xs) == 250000, len(xs)
assert {e["pid"] for e in xs} == {0, 1}
o = d["otherData"]
assert o["dropped_spans"] == 10000 and "keeps the first 250000 spans" in o["dropped_why"], o
# every lane is named before its first event
named, seen = set(), set()
for e in d["traceEvents"]:
    if e["ph"] == "M" and e["name"] == "thread_name": named.add((e["pid"], e["tid"]))
    if e["ph"] == "X": assert (e["pid"], e["tid"]) in named, e
PY
hrun out spmd many.lua --backend sim --ranks 2 --trace "$tmp/j.json" --json
[ $rc -eq 0 ] && python3 - out <<'PY' && ok || { bad "--json of 260k spans: exit $rc"; tail -20 out; }
import json, sys
text = open(sys.argv[1]).read()
doc = json.loads(text[text.index("{"):])
t = doc["trace"]
assert t["spans"] == 250000 and t["dropped"] == 10000 and t["written"], t
PY
# an unwritable trace fails before any rank runs
echo 'print("ran")' >one.lua
hrun out spmd one.lua --backend sim --ranks 1 --trace "$tmp/no/such/dir/t.json"
[ $rc -eq 1 ] && has out "cannot write the trace to $tmp/no/such/dir/t.json" && ! has out "ran" && ok ||
  { bad "an unwritable trace: exit $rc"; cat out; }
finish
