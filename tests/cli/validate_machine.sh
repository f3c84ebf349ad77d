#!/usr/bin/env bash
# validate_machine.sh - `mgpulab validate` on machines that are not what they
# should be: GPUDirect RDMA off (the NICs named), an NCCL XML with a GPU on a
# PCIe Gen3 x8 link (the GPU named), and a machine that is not the expected
# one (--expect). Exit status 1 on each.
source "$(dirname "$0")/validate_lib.bash" "$1"

run --machine dgx-h100 --fault no-gdr; rc=$?
check "no-gdr exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "no-gdr: GPUDirect RDMA anomaly naming NICs" 'anomaly topology "GPUDirect RDMA" | grep -q "mlx5_0"'
check "no-gdr: one finding, GPUDirect RDMA" 'finding "^GPUDirect RDMA is off on 8 of 8 NICs"'

# Every node by default: on 2x-dgx-h100, 16 ranks without --ranks; the
# collectives and each NIC pair show GPUDirect RDMA off, under one finding.
run --machine 2x-dgx-h100 --fault no-gdr; rc=$?
check "2 nodes no-gdr exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "2 nodes: 16 ranks by default" 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"ranks\"] == 16, d[\"ranks\"]" "$tmp/v.json"'
check "2 nodes no-gdr: all_gather busbw flagged" 'anomaly collective "all_gather 4 MiB out of place busbw" >/dev/null'
check "2 nodes no-gdr: every NIC pair below the model" '[ "$(anomaly network "rank " | wc -l)" -eq 16 ]'
check "2 nodes no-gdr: rank 3 to rank 11 named" 'anomaly network "rank 3 -> rank 11 (GPU3" >/dev/null'
check "2 nodes no-gdr: one finding" 'finding "^GPUDirect RDMA is off on 16 of 16 NICs"'
run --machine 2x-dgx-h100; rc=$?
check "2 nodes healthy: NIC pairs at the model" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d[\"checks\"] if c[\"check\"].startswith(\"inter-node bandwidth, 16 NIC pairs\")][0]
assert c[\"status\"] == \"ok\" and c[\"tolerance\"] == 0.1, c
" "$tmp/v.json"'

# An XML whose third GPU sits on a PCIe Gen3 x8 link.
"$bin" topo --backend sim --machine pcie-4gpu --xml "$tmp/p4.xml" >/dev/null
python3 - "$tmp/p4.xml" <<'PY'
import re, sys
p = sys.argv[1]; s = open(p).read()
gpu = [m.start() for m in re.finditer(r'<pci busid="[^"]*" class="0x030200"', s)][2]
end = s.index(">", gpu)
tag = s[gpu:end].replace('link_speed="16.0 GT/s PCIe"', 'link_speed="8.0 GT/s PCIe"').replace('link_width="16"', 'link_width="8"')
open(p, "w").write(s[:gpu] + tag + s[end:])
PY
run --machine "$tmp/p4.xml"; rc=$?
check "Gen3 x8 exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "Gen3 x8: GPU2 named with its link" 'anomaly topology "GPU2 PCIe link" | grep -q "Gen3 x8 | Gen4 x16 | GPU2 (0000:"'
check "Gen3 x8: only GPU2" '! anomaly topology "GPU0 PCIe link" >/dev/null && ! anomaly topology "GPU3 PCIe link" >/dev/null'

# Not the machine it should be.
run --machine pcie-4gpu --expect dgx-h100; rc=$?
check "--expect another machine exits 1" '[ $rc -eq 1 ]'
check "--expect: GPU count" 'anomaly topology "GPU count" | grep -q "| 4 | 8 (dgx-h100)"'

echo "validate_machine: $pass passed, $fail failed"
[ $fail -eq 0 ]
