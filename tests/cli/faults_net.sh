#!/usr/bin/env bash
# faults_net.sh - the NIC, PCIe and network sim faults (lab 12 draws them):
# nic-down, nic-slow, ib-speed, pcie-downgrade, net-socket. Each shows where
# an engineer would look - topo (NIC legend, JSON state and rate), copy (the
# GPU's host copies), bench (busbw across nodes), the NCCL INFO log
# (NET/Socket, the port skipped, NET/IB/N per channel) and validate (the
# thing at fault named in the first finding) - and a fault naming a NIC or
# GPU the machine lacks, or one that would change nothing there, exits 2.
source "$(dirname "$0")/validate_lib.bash" "$1"
export XDG_STATE_HOME="$tmp/state"
sim() { "$bin" --backend sim "$@"; }
# busbw of a 256 MiB all_reduce over the 16 ranks of 2x-dgx-h100
busbw() { sim --machine 2x-dgx-h100 --ranks 16 "$@" bench all_reduce -b 256M -e 256M 2>/dev/null |
          awk '$1 == 268435456 { print $8; exit }'; }
healthy=$(busbw)
check "healthy busbw read ($healthy)" '[ -n "$healthy" ]'
below() { awk -v a="$1" -v b="$healthy" -v f="$2" 'BEGIN { exit !(a > 0 && a < b * f) }'; }

# --- nic-down ---------------------------------------------------------------
sim --machine 2x-dgx-h100 --fault nic-down:3 topo >"$tmp/t.txt" 2>&1
check "nic-down: topo's legend says the port is DOWN" 'grep -q "NIC3: mlx5_3 (port state DOWN)" "$tmp/t.txt"'
check "nic-down: other NICs unmarked" 'grep -q "NIC2: mlx5_2$" "$tmp/t.txt"'
sim --machine 2x-dgx-h100 --fault nic-down:3 topo --json >"$tmp/t.json"
check "nic-down: JSON state" 'python3 -c "
import json; d = json.load(open(\"$tmp/t.json\"))
assert d[\"nics\"][3][\"state\"] == \"DOWN\" and d[\"nics\"][2][\"state\"] == \"ACTIVE\", d[\"nics\"][3]"'
b=$(busbw --fault nic-down:3)
check "nic-down: all_reduce across nodes slower ($b < $healthy)" 'below "$b" 0.9'
NCCL_DEBUG=INFO sim --machine 2x-dgx-h100 --ranks 16 --fault nic-down:3 bench all_reduce -b 1M -e 1M >"$tmp/log.txt" 2>&1
check "nic-down: NCCL skips the port" 'grep -q "NET/IB : mlx5_3:1 port is not active (state DOWN), skipping" "$tmp/log.txt"'
check "nic-down: NCCL lists 7 ports on node0" 'grep "SIMULATED-node0.*NET/IB : Using" "$tmp/log.txt" | grep -q "\[6\]mlx5_7:1/IB ;"'
run --machine 2x-dgx-h100 --fault nic-down:3; rc=$?
check "nic-down: validate exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "nic-down: the port row" 'anomaly topology "NIC3 mlx5_3 (host 0) port" | grep -q "| DOWN | ACTIVE |"'
check "nic-down: one finding, the NIC" 'finding "^NIC3 mlx5_3 \(host 0\) port is DOWN"'

# --- ib-speed ---------------------------------------------------------------
sim --machine 2x-dgx-h100 --fault ib-speed:12:100 topo >"$tmp/t.txt" 2>&1
check "ib-speed: topo's legend has the rate" 'grep -q "NIC4: mlx5_4 (rate 100 Gb/s, supports 400)" "$tmp/t.txt"'
b=$(busbw --fault ib-speed:12:100)
check "ib-speed: all_reduce across nodes slower ($b)" 'below "$b" 0.5'
run --machine 2x-dgx-h100 --fault ib-speed:12:100; rc=$?
check "ib-speed: validate exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "ib-speed: one finding, the port's rate" 'finding "^NIC12 mlx5_4 \(host 1\) port is 100 Gb/s where it should be 400 Gb/s"'

# --- nic-slow: no static evidence, only measured -----------------------------
sim --machine 2x-dgx-h100 --fault nic-slow:2 topo >"$tmp/t.txt" 2>&1
check "nic-slow: the legend reads healthy" 'grep -q "NIC2: mlx5_2$" "$tmp/t.txt"'
b=$(busbw --fault nic-slow:2)
check "nic-slow: all_reduce across nodes slower ($b)" 'below "$b" 0.6'
run --machine 2x-dgx-h100 --fault nic-slow:2; rc=$?
check "nic-slow: validate exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "nic-slow: the NIC pair of GPU2 below the model" 'anomaly network "rank 2 -> rank 10 (GPU2" >/dev/null'
check "nic-slow: no other GPU's pair" '! anomaly network "rank 3 -> rank 11" >/dev/null'
check "nic-slow: one finding, the pairs through GPU2's NIC" 'finding "^the NIC pairs through GPU2.s NIC are below the model"'

# --- pcie-downgrade ---------------------------------------------------------
sim --machine dgx-h100 --fault pcie-downgrade:5 copy host_to_device_memcpy_ce --json >"$tmp/c.json" 2>/dev/null
check "pcie-downgrade: GPU5's host copy is the slow one" 'python3 - "$tmp/c.json" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
tc = d["testcases"][0]
vals = tc["matrices"][0]["values"][0]
assert vals and min(vals) == vals[5] and vals[5] < 0.3 * vals[0], tc
PY'
sim --machine dgx-h100 --fault pcie-downgrade:5:gen3x8 topo --json >"$tmp/t.json"
check "pcie-downgrade: topo JSON has the trained link" 'python3 -c "
import json; g = json.load(open(\"$tmp/t.json\"))[\"gpus\"]
assert (g[5][\"pcie_gen\"], g[5][\"pcie_width\"]) == (3, 8) and g[4][\"pcie_gen\"] == 5, g[5]"'
run --machine dgx-h100 --fault pcie-downgrade:5; rc=$?
check "pcie-downgrade: validate exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "pcie-downgrade: one finding, the GPU's link" 'finding "^GPU5.s PCIe link is Gen4 x8 where it should be Gen5 x16"'

# --- net-socket -------------------------------------------------------------
b=$(busbw --fault net-socket)
check "net-socket: all_reduce across nodes far slower ($b)" 'below "$b" 0.1'
NCCL_DEBUG=INFO sim --machine 2x-dgx-h100 --ranks 16 --fault net-socket bench all_reduce -b 1M -e 1M >"$tmp/log.txt" 2>&1
check "net-socket: NCCL says no IB device" 'grep -q "NET/IB : No device found." "$tmp/log.txt"'
check "net-socket: NCCL uses the socket" 'grep -q "Using network Socket" "$tmp/log.txt" && grep -q "via NET/Socket/0" "$tmp/log.txt"'
check "net-socket: no NET/IB channel" '! grep -q "via NET/IB" "$tmp/log.txt"'
run --machine 2x-dgx-h100 --fault net-socket; rc=$?
check "net-socket: validate exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "net-socket: one finding, the transport" 'finding "^NCCL.s network transport is Socket where it should be IB"'

# --- refusals: validate exits 2 (bad usage), topo and bench 1 as for every
# fault; said on stderr, before anything runs ---------------------------------
refuse() { # MACHINE FAULT PHRASE
  local m=$1 f=$2 p=$3 rc
  "$bin" --backend sim --machine "$m" --fault "$f" validate --quick >"$tmp/o.txt" 2>"$tmp/e.txt"; rc=$?
  check "$f on $m: validate exits 2 (rc=$rc)" '[ $rc -eq 2 ] && [ ! -s "$tmp/o.txt" ]'
  check "$f on $m: says '$p'" 'grep -qF -- "$p" "$tmp/e.txt"'
  for cmd in topo "bench all_reduce"; do
    "$bin" --backend sim --machine "$m" --fault "$f" $cmd >"$tmp/o.txt" 2>"$tmp/e.txt"; rc=$?
    check "$f on $m: $cmd refuses (rc=$rc)" '[ $rc -ne 0 ] && grep -qF -- "$p" "$tmp/e.txt"'
  done
}
refuse 2x-dgx-h100 nic-down:16 "names NIC 16, but 2x-dgx-h100 has 16 NICs (0..15)"
refuse pcie-4gpu nic-down:1 "pcie-4gpu has 1 NIC (0..0)"
refuse dgx-h100 nic-slow:1 "has one host"
refuse single-gpu net-socket "has one host"
refuse dgx-h100 pcie-downgrade:8 "names GPU 8, but dgx-h100 has 8 GPUs (0..7)"
refuse dgx-h100 pcie-downgrade:0:gen5x16 "is wired Gen5 x16"
refuse dgx-h100 ib-speed:0:800 "runs at 400 Gb/s"
refuse dgx-h100 nic-slow:0:0.5 "above 1"
check "the help lists the new faults" '"$bin" --help | grep -q "nic-slow\[:NIC\[:FACTOR\]\]" && "$bin" --help | grep -q "pcie-downgrade\[:GPU\[:genGxW\]\]"'

echo "faults_net: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
