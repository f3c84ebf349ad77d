#!/usr/bin/env bash
# large_topology.sh - `mgpulab topo` on a valid NCCL XML of one host with
# 2,000 GPUs (issue 16 item 16). The matrix and peer table went to the
# coordinator as arrays of strings, 49 MB, and topo failed with "a message
# of 48948905 bytes is over the 16 MiB limit". Now their rows travel packed
# and the whole matrix prints. The XML is made here (gen_topo.py), not kept.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
cat >gen_topo.py <<'PY'
# one <system>, 8 CPU sockets, N GPUs (H100 SXM ids) each behind its own PCIe switch
import sys
n = int(sys.argv[1]); per = (n + 7) // 8; g = 0
out = ['<system version="1">']
for s in range(8):
    out.append('  <cpu numaid="%d" affinity="ffffffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">' % s)
    while g < min(n, (s + 1) * per):
        dom, bus = g // 64, (g % 64) * 4 + 1
        link = 'link_speed="32.0 GT/s PCIe" link_width="16"'
        out.append('    <pci busid="%04x:%02x:00.0" class="0x060400" vendor="0x1000" device="0xc030" '
                   'subsystem_vendor="0x1000" subsystem_device="0x100b" %s>' % (dom, bus, link))
        out.append('      <pci busid="%04x:%02x:00.0" class="0x030200" vendor="0x10de" device="0x2330" '
                   'subsystem_vendor="0x10de" subsystem_device="0x16c1" %s>' % (dom, bus + 1, link))
        out.append('        <gpu dev="%d" sm="90" rank="%d" gdr="1"/>' % (g, g))
        out.append('      </pci>\n    </pci>')
        g += 1
    out.append('  </cpu>')
out.append('</system>')
print("\n".join(out))
PY
python3 gen_topo.py 2000 >big.xml
timeout -s KILL 500 "$bin" topo --backend sim --machine big.xml >out 2>err </dev/null; rc=$?
# the last row of the matrix, whole: GPU1999 then 2000 cells, X on the diagonal
last=$(grep -P '^GPU1999\t' out | head -1)
cells=$(awk -F'\t' '{print NF - 1}' <<<"$last")
if [ $rc -eq 0 ] && [ "$cells" -ge 2000 ] && [ "$(cut -f2001 <<<"$last")" = " X " ] && has out '^Peer access'; then ok
else bad "topo of 2,000 GPUs: exit $rc, last row has ${cells:-no} cells"; head -c 400 err; fi
# same socket (one CPU) is NODE, across sockets SYS: GPU0's row
row0=$(grep -P '^GPU0\t' out | head -1)
if [ "$(cut -f3 <<<"$row0")" = NODE ] && [ "$(cut -f2001 <<<"$row0")" = SYS ]; then ok
else bad "GPU0's row: GPU1 '$(cut -f3 <<<"$row0")' (want NODE), GPU1999 '$(cut -f2001 <<<"$row0")' (want SYS)"; fi
finish
