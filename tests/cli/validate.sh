#!/usr/bin/env bash
# validate.sh - `mgpulab validate` on a clean sim machine: no anomaly, exit 0,
# the four output formats (table, Markdown, JSON, JUnit XML that parses), and
# clear usage errors. tests/cli/validate_faults.sh holds the faults.
set -u
bin=$1
tmp=$(mktemp -d /tmp/mgpu-validate-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

# A clean preset: no anomaly, every measurement next to its prediction.
"$bin" validate --backend sim --machine pcie-4gpu --quick --markdown "$tmp/v.md" --junit "$tmp/v.xml" \
  >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
out=$(cat "$tmp/out.txt")
check "clean pcie-4gpu exits 0 (rc=$rc; $(grep -m3 ANOMALY "$tmp/out.txt"; head -c 300 "$tmp/err.txt"))" '[ $rc -eq 0 ]'
check "says SIMULATED" 'grep -q "^# measured: SIMULATED machine pcie-4gpu (backend sim" <<<"$out"'
check "verdict line" 'grep -qE "^[0-9]+ checks: [0-9]+ ok, 0 anomalies, .* - no anomaly \(SIMULATED machine pcie-4gpu\)$" <<<"$out"'
check "tolerances said per bound" 'grep -q "tolerance per check: the model.s uncertainty .*HBM 12 %.*network 10 %" <<<"$out"'
check "a check shows its tolerance" 'grep -qE "^copy +ok +host_to_device_memcpy_ce .* GB/s \+-10 %$" <<<"$out"'
check "no findings when healthy" '! grep -q "^Findings" <<<"$out"'
for sec in topology copy collective ranks; do
  check "a $sec check" 'grep -q "^$sec " <<<"$out"'
done
check "host-to-device copy against its prediction" 'grep -qE "^copy +ok +host_to_device_memcpy_ce" <<<"$out"'
check "all_reduce busbw row" 'grep -qE "^collective +ok +all_reduce 4 MiB out of place busbw" <<<"$out"'
check "all_reduce latency row" 'grep -qE "^collective +ok +all_reduce 8 B out of place latency" <<<"$out"'
check "all_gather row" 'grep -qE "^collective +ok +all_gather 4 MiB" <<<"$out"'
check "straggler check over 4 ranks" 'grep -qE "^ranks +ok +stragglers \(4 ranks\)" <<<"$out"'
check "no progress bar when stderr is not a terminal" '! grep -q "####" "$tmp/err.txt"'
check "Markdown file" 'grep -q "^# mgpulab validate: no anomaly$" "$tmp/v.md" && grep -q "^| section | status |" "$tmp/v.md"'
check "JUnit file parses with no failure" 'python3 -c "
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.tag == \"testsuites\" and r.get(\"failures\") == \"0\" and int(r.get(\"tests\")) > 10, r.attrib
assert len(r.findall(\"testsuite/testcase\")) == int(r.get(\"tests\"))
" "$tmp/v.xml"'
# JUnit says SIMULATED (a CI page shows nothing else) and carries time attributes
check "JUnit: SIMULATED, backend and machine, time attributes" 'python3 -c "
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert \"SIMULATED machine pcie-4gpu\" in r.get(\"name\"), r.get(\"name\")
assert float(r.get(\"time\")) > 0, r.attrib
for s in r.findall(\"testsuite\"):
    assert s.get(\"name\").startswith(\"SIMULATED \") and s.get(\"time\") is not None, s.attrib
    p = {x.get(\"name\"): x.get(\"value\") for x in s.iter(\"property\")}
    assert p[\"backend\"] == \"sim\" and p[\"simulated\"] == \"true\" and p[\"machine\"] == \"pcie-4gpu\", p
    for c in s.findall(\"testcase\"):
        assert c.get(\"time\") is not None and c.get(\"classname\").startswith(\"mgpulab.validate.simulated.\")
assert any(float(c.get(\"time\")) > 0 for c in r.iter(\"testcase\"))
" "$tmp/v.xml"'
# the text table never cuts a value: each measured and expected of the JSON in full
"$bin" validate --backend sim --machine pcie-4gpu --quick --json >"$tmp/p.json" 2>/dev/null
check "text output never truncates a value" 'python3 - "$tmp/p.json" "$tmp/out.txt" <<PY
import json, sys
d = json.load(open(sys.argv[1])); t = open(sys.argv[2]).read()
for c in d["checks"]:
    for k in ("check", "measured", "expected"):
        assert c[k] in t, (k, c[k])
assert any("cells" in c["measured"] and "GB/s" in c["measured"] for c in d["checks"])
PY'

# JSON on stdout (the global --json too).
"$bin" validate --backend sim --machine single-gpu --quick --json >"$tmp/v.json" 2>"$tmp/err.txt"; rc=$?
check "single-gpu --json exits 0 (rc=$rc)" '[ $rc -eq 0 ]'
check "JSON: tool, no anomaly, checks with status" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"tool\"] == \"mgpulab validate\" and d[\"anomalies\"] == 0 and d[\"simulated\"] is True, d
st = {c[\"status\"] for c in d[\"checks\"]}
assert st <= {\"ok\", \"info\"}, st
names = [c[\"check\"] for c in d[\"checks\"]]
assert any(\"in place latency\" in n for n in names), names
" "$tmp/v.json"'
# One rank in place is a no-op in NCCL, and the model says so.
# (the host's enqueue alone: under the microsecond a 4 MiB copy would take)
check "1-rank in-place all_reduce priced as the host's enqueue" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d[\"checks\"] if c[\"check\"].startswith(\"all_reduce 4 MiB in place\")][0]
assert float(c[\"expected\"].split()[0]) < 1.0, c
" "$tmp/v.json"'

# Markdown and JUnit on stdout.
"$bin" validate --backend sim --machine single-gpu --quick --format junit >"$tmp/j.xml" 2>/dev/null; rc=$?
check "--format junit exits 0 and parses" '[ $rc -eq 0 ] && python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$tmp/j.xml"'

# Usage errors: exit 2 with a message.
"$bin" validate --format yaml >/dev/null 2>"$tmp/e"; rc=$?
check "bad --format exits 2" '[ $rc -eq 2 ] && grep -q "text, markdown, json or junit" "$tmp/e"'
"$bin" validate --expect no-such-machine --backend sim >/dev/null 2>"$tmp/e"; rc=$?
check "unknown --expect exits 2 naming it" '[ $rc -eq 2 ] && grep -q "no-such-machine" "$tmp/e"'
"$bin" validate --tolerance 0 --backend sim >/dev/null 2>"$tmp/e"; rc=$?
check "bad --tolerance exits 2" '[ $rc -eq 2 ]'
"$bin" validate --backend cuda --machine dgx-h100 >/dev/null 2>"$tmp/e"; rc=$?
check "--machine with cuda exits 2" '[ $rc -eq 2 ] && grep -q "simulated machine" "$tmp/e"'
check "--help" '"$bin" validate --help | grep -q "^usage: mgpulab validate"'

echo "validate: $pass passed, $fail failed"
[ $fail -eq 0 ]
