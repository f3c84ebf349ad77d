#!/usr/bin/env bash
# no_driver.sh - on a machine without an NVIDIA driver (CI, laptops) the
# binary starts, --backend cuda fails with a message that says what to do,
# and auto falls back to sim saying why. Skips itself where a GPU exists.
set -u
bin=$1
pass=0 fail=0
if [ -e /dev/nvidiactl ] || command -v nvidia-smi >/dev/null 2>&1; then
  echo "a GPU driver is present here: nothing to check"; echo "0 passed, 0 failed"; exit 0
fi
check() { if eval "$1"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: $2"; fi; }

out=$("$bin" --version 2>&1); check '[ $? -eq 0 ]' "--version runs without a driver: $out"
if grep -q "cuda and sim" <<<"$out"; then
  out=$("$bin" topo --backend cuda 2>&1); rc=$?
  check '[ $rc -eq 1 ]' "--backend cuda exits 1 without a driver (rc=$rc)"
  check 'grep -q "no NVIDIA driver" <<<"$out"' "message names the missing driver: $out"
  check 'grep -q -- "--backend sim" <<<"$out"' "message suggests --backend sim: $out"
else
  out=$("$bin" topo --backend cuda 2>&1); rc=$?
  check '[ $rc -eq 1 ] && grep -q "built without the cuda backend" <<<"$out"' "sim-only build says so: $out"
fi
out=$("$bin" topo 2>&1); rc=$?
check '[ $rc -eq 0 ]' "auto falls back to sim (rc=$rc)"
check 'grep -q "SIMULATED machine dgx-h100 (auto: no usable GPU" <<<"$out"' "auto says why: $(head -1 <<<"$out")"
# the banner is one short line (issue 10, item 15); the driver's story follows once
check '[ "$(head -1 <<<"$out" | wc -c)" -le 80 ]' "the banner is short: $(head -1 <<<"$out")"
check 'grep -q "^# why not cuda: ." <<<"$out"' "the detail follows the banner: $(head -3 <<<"$out")"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
