#!/usr/bin/env bash
# jobs.sh - `mgpulab topo` and `mgpulab copy` run their device work in a
# rank worker (jobs "topo" and "copy"), not in the command's own process:
# a runtime that cannot start stops them with the runtime's message; the
# worker's errors come back with the engine's own words; --peer and --xml
# come from the worker's document.
set -u
bin=$1
fail=0; pass=0
check() { if eval "$2"; then pass=$((pass+1)); else echo "FAIL: $1"; fail=$((fail+1)); fi; }
tmp=$(mktemp -d /tmp/mgpu-jobs-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# The runtime is in the path: a bad transport setting stops both commands.
out=$(MGPU_RT_TRANSPORT=pigeon "$bin" topo --backend sim 2>&1); rc=$?
check "topo goes through the runtime (rc=$rc): $out" '[ $rc -eq 1 ] && grep -q "MGPU_RT_TRANSPORT=.pigeon." <<<"$out"'
out=$(MGPU_RT_TRANSPORT=pigeon "$bin" copy --backend sim -t device_local_copy -b 1 2>&1); rc=$?
check "copy goes through the runtime (rc=$rc): $out" '[ $rc -eq 1 ] && grep -q "MGPU_RT_TRANSPORT=.pigeon." <<<"$out"'
# TCP between coordinator and worker works the same.
out=$(MGPU_RT_TRANSPORT=tcp MGPU_COORD_HOST=127.0.0.1 "$bin" topo --backend sim --machine pcie-4gpu 2>&1); rc=$?
check "topo over TCP (rc=$rc)" '[ $rc -eq 0 ] && grep -q "^# SIMULATED machine pcie-4gpu" <<<"$out"'

# An error inside the worker reaches the user as the engine's message, once.
out=$("$bin" topo --backend sim --fault no-such-fault 2>&1); rc=$?
check "a worker's error (rc=$rc): $out" '[ $rc -eq 1 ] && [ "$(grep -c "is not a fault" <<<"$out")" -eq 1 ] && ! grep -q "rank 0" <<<"$out"'

# --peer: the backend's P2P attributes, asked of the worker.
out=$("$bin" topo --backend sim --machine pcie-4gpu --peer 2>&1); rc=$?
n=$(grep -cE '^GPU[0-9] +GPU[0-9] +(yes|no) ' <<<"$out")
check "--peer lists 12 ordered pairs of pcie-4gpu (got $n)" '[ $rc -eq 0 ] && [ "$n" -eq 12 ]'
# --json prints the document without the worker-only members.
"$bin" topo --backend sim --machine dgx-h100 --json >"$tmp/t.json" 2>/dev/null
check "--json has no xml or p2p_attributes" 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert \"xml\" not in d and \"p2p_attributes\" not in d and d[\"banner\"].startswith(\"SIMULATED\")" "$tmp/t.json"'
# --xml from the worker's document equals the file form.
"$bin" topo --backend sim --machine 2x-dgx-h100 --xml >"$tmp/a.xml" 2>/dev/null
"$bin" topo --backend sim --machine 2x-dgx-h100 --xml "$tmp/b.xml" >/dev/null 2>&1
check "--xml to stdout and to a file agree" 'cmp -s "$tmp/a.xml" "$tmp/b.xml" && grep -q "<system" "$tmp/a.xml"'

# copy: the Running lines arrive before each result, and the header's
# defaults come from the worker (sim).
out=$("$bin" copy --backend sim --machine single-gpu host_to_device_memcpy_ce device_local_copy 2>&1); rc=$?
check "copy order: Running, matrix, Running, matrix (rc=$rc)" '[ $rc -eq 0 ] && [ "$(grep -E "^(Running|SUM) " <<<"$out" | tr "\n" " ")" = "Running host_to_device_memcpy_ce. SUM host_to_device_memcpy_ce $(grep -E "^SUM host_to_device" <<<"$out" | cut -d" " -f3) Running device_local_copy. SUM device_local_copy $(grep -E "^SUM device_local_copy" <<<"$out" | cut -d" " -f3) " ]'
check "sim defaults named in the header" 'grep -q "^Buffer size 16M (16777216 bytes), loop count 4, 1 samples, median" <<<"$out" && grep -q "^NOTE: SIMULATED timings" <<<"$out"'
out=$("$bin" copy --backend sim --machine single-gpu -t device_local_copy -b 2 --loopCount 3 -i 2 -m 2>&1)
check "options given are the worker's options" 'grep -q "^Buffer size 2M (2097152 bytes), loop count 3, 2 samples, mean$" <<<"$out" && ! grep -q "^NOTE: SIMULATED" <<<"$out"'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
