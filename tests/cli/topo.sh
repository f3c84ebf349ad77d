#!/usr/bin/env bash
# topo.sh - `mgpulab topo` on sim machines: the nvidia-smi matrix, legend,
# peer access, JSON, the XML round trip, and clear errors for bad input.
set -u
bin=$1
tmp=$(mktemp -d /tmp/mgpu-topo-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

# dgx-h100: 8 GPU rows, NV18 between every pair, affinity columns, NIC rows, legend.
out=$("$bin" topo --backend sim --machine dgx-h100 2>&1); rc=$?
check "dgx-h100 exits 0 (rc=$rc)" '[ $rc -eq 0 ]'
check "banner says SIMULATED and the machine" 'grep -q "^# SIMULATED machine dgx-h100" <<<"$out"'
check "header row" 'grep -qP "^\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0.*\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID$" <<<"$out"'
rows=$(grep -cP "^GPU[0-7]\t" <<<"$out")
check "8 GPU rows in the matrix (got $rows)" '[ "$(grep -P "^GPU[0-7]\t" <<<"$out" | head -8 | wc -l)" -eq 8 ]'
nv=$(grep -P "^GPU[0-7]\t" <<<"$out" | head -8 | awk -F'\t' '{for(i=2;i<=9;i++) if($i=="NV18") n++} END{print n+0}')
check "NV18 between every pair (got $nv of 56)" '[ "$nv" -eq 56 ]'
selfs=$(grep -P "^GPU[0-7]\t" <<<"$out" | head -8 | awk -F'\t' '{if($(NR+1)==" X ") n++} END{print n+0}')
check "X on the diagonal (got $selfs)" '[ "$selfs" -eq 8 ]'
check "affinity columns" 'grep -qP "^GPU0\t.*\t0-55,112-167\t0\t\tN/A$" <<<"$out"'
check "NIC rows" 'grep -qP "^NIC0\t" <<<"$out"'
check "legend" 'grep -q "^  NV#  = Connection traversing a bonded set of # NVLinks$" <<<"$out" && grep -q "^Legend:$" <<<"$out"'
check "NIC legend" 'grep -q "^  NIC0: mlx5_0$" <<<"$out"'
check "peer access matrix" 'grep -q "^Peer access" <<<"$out"'

# pcie-4gpu: no NVLink at all.
out=$("$bin" topo --backend sim --machine pcie-4gpu 2>&1); rc=$?
check "pcie-4gpu exits 0" '[ $rc -eq 0 ]'
check "pcie-4gpu has no NV# cells" '! grep -P "^GPU[0-3]\t" <<<"$out" | grep -q "NV[0-9]"'

# Two hosts: one matrix per host and the NET line.
out=$("$bin" topo --backend sim --machine 2x-dgx-h100 2>&1); rc=$?
check "2x-dgx-h100 exits 0" '[ $rc -eq 0 ]'
check "one matrix per host" 'grep -q "^# host 0 of 2" <<<"$out" && grep -q "^# host 1 of 2" <<<"$out"'
check "says hosts connect over NET" 'grep -q "connect over NET" <<<"$out"'

# --peer lists the backend's P2P attributes.
out=$("$bin" topo --backend sim --machine dgx-h100 --peer 2>&1); rc=$?
check "--peer exits 0 and lists attributes" '[ $rc -eq 0 ] && grep -q "^P2P attributes" <<<"$out"'

# JSON parses and says SIMULATED and the machine.
"$bin" topo --backend sim --machine dgx-h100 --json >"$tmp/t.json" 2>"$tmp/err"; rc=$?
check "--json exits 0" '[ $rc -eq 0 ]'
check "--json parses" 'python3 -m json.tool "$tmp/t.json" >/dev/null'
check "--json content" 'python3 - "$tmp/t.json" <<EOF
import json, sys
j = json.load(open(sys.argv[1]))
assert j["simulated"] is True and j["machine"] == "dgx-h100", j.get("machine")
assert len(j["gpus"]) == 8 and len(j["nics"]) == 8
rows = j["matrix"]["rows"]
assert rows[0][1] == "NV18" and rows[0][0] == "X"
assert j["peer_access"][0][1] is True and j["peer_access"][0][0] is None
assert j["gpus"][0]["cpulist"] == "0-55,112-167" and j["gpus"][0]["numa"] == 0
assert j["gpus"][0]["bf16_tflops"] == 989, j["gpus"][0].get("bf16_tflops")  # H100 SXM dense bf16: MFU divides by it
EOF'

# XML: export, import, export again: byte-identical.
for m in dgx-h100 2x-dgx-h100 pcie-4gpu single-gpu; do
  "$bin" topo --backend sim --machine $m --xml "$tmp/$m.1.xml" >/dev/null 2>&1 || bad "$m --xml FILE"
  "$bin" topo --backend sim --machine "$tmp/$m.1.xml" --xml "$tmp/$m.2.xml" >/dev/null 2>&1 || bad "$m re-import"
  check "$m XML round trip is byte-identical" 'cmp -s "$tmp/$m.1.xml" "$tmp/$m.2.xml"'
done
"$bin" topo --backend sim --machine dgx-h100 --xml >"$tmp/stdout.xml" 2>"$tmp/err"
check "--xml to stdout is the same XML, banner on stderr" 'cmp -s "$tmp/stdout.xml" "$tmp/dgx-h100.1.xml" && grep -q SIMULATED "$tmp/err"'
out=$("$bin" topo --backend sim --machine "$tmp/dgx-h100.1.xml" 2>&1)
check "replayed XML says SIMULATED and names the file" 'grep -q "^# SIMULATED machine .*dgx-h100.1.xml" <<<"$out"'

# Bad input: non-zero exit, a clear message, no crash (status 1 or 2, never >= 128).
expect() { # expect STATUS PATTERN ARGS...
  local want=$1 pat=$2; shift 2
  local o r
  o=$("$bin" "$@" 2>&1); r=$?
  if [ "$r" -ne "$want" ] || ! grep -qiE -- "$pat" <<<"$o"; then
    bad "mgpulab $* -> rc=$r (want $want): $(head -3 <<<"$o")"
  else ok; fi
}
expect 1 "dgx-h100" topo --backend sim --machine no-such-preset
expect 1 "$tmp/missing.xml" topo --backend sim --machine "$tmp/missing.xml"
printf '<system version="1"><cpu numaid="0"><pci busid="0000:01:00.0"' >"$tmp/broken.xml"
expect 1 "broken.xml" topo --backend sim --machine "$tmp/broken.xml"
printf '<system version="1"><cpu numaid="0" affinity="ff"><pci busid="0000:01:00.0"><gpu dev="first" sm="90"/></pci></cpu></system>\n' >"$tmp/badattr.xml"
expect 1 "dev" topo --backend sim --machine "$tmp/badattr.xml"
expect 2 "unknown option" topo --backend sim --frobnicate
expect 2 "unexpected argument" topo --backend sim extra
expect 2 "pick one" topo --backend sim --json --xml
expect 1 "cannot write" topo --backend sim --xml "$tmp/no/such/dir/x.xml"
expect 0 "usage: mgpulab topo" topo --help

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
