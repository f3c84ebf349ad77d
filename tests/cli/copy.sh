#!/usr/bin/env bash
# copy.sh - `mgpulab copy` on the sim backend: nvbandwidth-style output, the
# read+write convention of device_local_copy, JSON that parses, waived
# testcases, bad options (exit 2) and a too-large buffer (exit 1, the other
# testcases still run).
set -u
bin=$1
fail=0; pass=0
small=(-b 1 -i 2 --loopCount 2)
expect() { # expect STATUS PATTERN -- ARGS...
  local want=$1 pat=$2; shift 3
  local out rc
  out=$("$bin" "$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qE -- "$pat" <<<"$out"; then
    echo "FAIL: mgpulab $* -> rc=$rc (want $want, pattern '$pat'), output:"; echo "$out" | head -8; fail=$((fail+1))
  else pass=$((pass+1)); fi
}
sim=(--backend sim --machine dgx-h100)
one=(--backend sim --machine single-gpu)

# text output: banner, Running line, matrix header, SUM, read+write line
out=$("$bin" copy "${sim[@]}" -t device_local_copy "${small[@]}" 2>&1); rc=$?
for pat in "^Backend: SIMULATED machine dgx-h100" "^Running device_local_copy\.$" \
           "^memcpy local GPU\(column\) bandwidth \(GB/s\)$" "^SUM device_local_copy [0-9]+\.[0-9]{2}$" \
           "^device_local_copy counting read\+write bytes: GPU 7: [0-9]+\.[0-9]{2} GB/s$" "^SIMULATED:"; do
  if [ $rc -ne 0 ] || ! grep -qE -- "$pat" <<<"$out"; then
    echo "FAIL: device_local_copy text lacks '$pat' (rc=$rc)"; echo "$out" | head -20; fail=$((fail+1))
  else pass=$((pass+1)); fi
done
# the matrix row: row id then 8 cells of two decimals; SUM equals the row's sum
row=$(grep -E '^ 0 ' <<<"$out")
if python3 - "$row" "$(grep -E '^SUM device_local_copy' <<<"$out")" <<'EOF'
import sys
cells = [float(x) for x in sys.argv[1].split()[1:]]
total = float(sys.argv[2].split()[2])
assert len(cells) == 8, cells
assert abs(sum(cells) - total) <= 0.01 * len(cells), (sum(cells), total)
EOF
then pass=$((pass+1)); else echo "FAIL: matrix row / SUM mismatch"; fail=$((fail+1)); fi

# JSON parses and names the machine; a waived testcase says why
json=$("$bin" copy "${one[@]}" --json device_local_copy device_to_device_memcpy_read_ce "${small[@]}"); rc=$?
if [ $rc -eq 0 ] && python3 - "$json" <<'EOF'
import json, sys
d = json.loads(sys.argv[1])
assert d["simulated"] is True and d["machine"] == "single-gpu", d
assert d["backend"] == "sim" and "SIMULATED" in d["backend_line"]
assert d["options"]["buffer_bytes"] == 1 << 20 and d["options"]["samples"] == 2
t = {x["name"]: x for x in d["testcases"]}
loc = t["device_local_copy"]
assert loc["status"] == "passed" and loc["unit"] == "GB/s"
m = loc["matrices"][0]
assert m["rows"] == 1 and m["cols"] == 1 and m["values"][0][0] > 0
assert abs(loc["read_write_gbs"][0] - 2 * m["values"][0][0]) < 1e-6
w = t["device_to_device_memcpy_read_ce"]
assert w["status"] == "waived" and "needs 2 GPUs, this machine has 1" in w["waived_reason"], w
assert d["failed"] == 0
EOF
then pass=$((pass+1)); else echo "FAIL: --json output (rc=$rc)"; echo "$json" | head -20; fail=$((fail+1)); fi
# -j is the same as the global --json
expect 0 '"machine": "single-gpu"' -- copy "${one[@]}" -j -t 34 "${small[@]}"

# waived testcases: exit 0, and say why
expect 0 "^Waived: device_to_device_memcpy_write_ce: needs 2 GPUs, this machine has 1" -- \
  copy "${one[@]}" device_to_device_memcpy_write_ce "${small[@]}"
# a prefix selects several testcases
out=$("$bin" copy "${one[@]}" host_to_device "${small[@]}" 2>&1)
n=$(grep -c '^Running host_to_device' <<<"$out")
if [ "$n" -eq 4 ]; then pass=$((pass+1)); else echo "FAIL: prefix host_to_device ran $n testcases"; fail=$((fail+1)); fi
# dgx-h100 peer matrix: 8x8, diagonal N/A
out=$("$bin" copy "${sim[@]}" -t device_to_device_memcpy_write_ce "${small[@]}" 2>&1)
if [ "$(grep -cE '^ [0-7] ' <<<"$out")" -eq 8 ] && grep -qE '^ 3 +([0-9.]+ +){3}N/A' <<<"$out"; then
  pass=$((pass+1)); else echo "FAIL: d2d matrix shape"; echo "$out" | tail -14; fail=$((fail+1)); fi
# pcie-4gpu: pairs across sockets have no peer access: N/A and the reason
expect 0 "N/A GPU [0-9] <-> GPU [0-9]: no peer access between them \(path SYS" -- \
  copy --backend sim --machine pcie-4gpu -t device_to_device_memcpy_read_ce "${small[@]}"

# --list
out=$("$bin" copy -l); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -cE '^[0-9]+, [a-z_]+:$' <<<"$out")" -eq 35 ] && grep -q '^34, device_local_copy:' <<<"$out"; then
  pass=$((pass+1)); else echo "FAIL: --list"; fail=$((fail+1)); fi

# bad options: exit 2 with a message naming the option
expect 2 "bufferSize.*out of range" -- copy "${one[@]}" -b -5
expect 2 "bufferSize.*(not a whole number|not a size)" -- copy "${one[@]}" -b 1e99
expect 2 "bufferSize.*not a size" -- copy "${one[@]}" -b 12Q
expect 2 "bufferSize.*out of range" -- copy "${one[@]}" -b 0
expect 2 "multiple of 16" -- copy "${one[@]}" -b 1000B
expect 2 "loopCount.*out of range" -- copy "${one[@]}" --loopCount 0
expect 2 "testSamples.*not a whole number" -- copy "${one[@]}" -i x
expect 2 "needs a value" -- copy "${one[@]}" -b
expect 2 "not a testcase name or prefix" -- copy "${one[@]}" host_to_dvice
expect 2 "out of range" -- copy "${one[@]}" -t 99
expect 2 "by index with -t 3" -- copy "${one[@]}" 3
expect 2 "unknown option '--frob'" -- copy "${one[@]}" --frob
expect 2 "not a backend" -- copy --backend gpu

# too large a buffer: device OOM, exit 1, and the next testcase still runs
out=$("$bin" copy "${sim[@]}" -b 1048576 device_local_copy host_device_latency_sm 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q "ERROR: device_local_copy: .*free; use a smaller --bufferSize" <<<"$out" \
   && grep -qE '^SUM host_device_latency_sm [0-9]+\.[0-9]{2}$' <<<"$out"; then
  pass=$((pass+1)); else echo "FAIL: OOM handling (rc=$rc)"; echo "$out" | tail -12; fail=$((fail+1)); fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
