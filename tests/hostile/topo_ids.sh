#!/usr/bin/env bash
# topo_ids.sh - topology XML with broken identities loaded (issue 34, low):
# two devices at one bus id, two GPUs with one rank, a bus id that is not
# one, and NVLinks to a device the file does not hold; `validate` against
# such a machine then said "no anomaly". Each must be refused, naming the
# element (file:line:col) and what is wrong; the healthy file still loads,
# as do NCCL's NVSwitch links (any target) and the repo's sample dumps.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
hrun out topo --backend sim --machine pcie-4gpu --xml good.xml
[ $rc -eq 0 ] && [ -s good.xml ] || { bad "could not export pcie-4gpu: exit $rc"; cat out; finish; exit 1; }

# mutate LINE-PATTERN SED-EXPR NAME: one change to the healthy file
mutate() { sed "$1" good.xml >"$2.xml"; cmp -s good.xml "$2.xml" && bad "$2: the mutation changed nothing"; }
mutate 's/busid="0000:04:00.0"/busid="0000:03:00.0"/' dup_busid
mutate 's/busid="0000:04:00.0"/busid="0000:03:00.0 "/' junk_space
mutate 's/busid="0000:06:00.0"/busid="zz:top"/' junk_busid
mutate 's/rank="2"/rank="1"/' dup_rank
mutate 's|<gpu dev="0" sm="89" rank="0" gdr="1"/>|<gpu dev="0" sm="89" rank="0" gdr="1"><nvlink target="0000:99:00.0" count="4" tclass="0x030200"/></gpu>|' nvl_missing
mutate 's|<gpu dev="0" sm="89" rank="0" gdr="1"/>|<gpu dev="0" sm="89" rank="0" gdr="1"><nvlink target="0000:03:00.0" count="4" tclass="0x030200"/></gpu>|' nvl_self
mutate 's|<gpu dev="0" sm="89" rank="0" gdr="1"/>|<gpu dev="0" sm="89" rank="0" gdr="1"><nvlink target="nowhere" count="4" tclass="0x068000"/></gpu>|' nvl_junk
mutate 's|<gpu dev="0" sm="89" rank="0" gdr="1"/>|<gpu dev="0" sm="89" rank="0" gdr="1"><nvlink target="0000:04:00.0" count="4" tclass="0x030200"/></gpu>|' nvl_peer
mutate 's|<gpu dev="0" sm="89" rank="0" gdr="1"/>|<gpu dev="0" sm="89" rank="0" gdr="1"><nvlink target="fffffff:ff:ff.0" count="4" tclass="0x068000"/></gpu>|' nvl_switch

refused() { # NAME PATTERN: topo refuses NAME.xml with a message matching PATTERN
  hrun out topo --backend sim --machine "$1.xml"
  [ $rc -ne 0 ] && has out "$1\.xml:[0-9]+:[0-9]+: .*$2" && ok || { bad "$1.xml was not refused with '$2' (exit $rc)"; cat out; }
}
refused dup_busid 'a second <pci busid="0000:03:00.0"> \(the first is at .*dup_busid.xml:[0-9]+'
refused junk_space 'is not a PCI bus id'
refused junk_busid 'busid="zz:top" is not a PCI bus id'
refused dup_rank 'a second <gpu rank="1">'
refused nvl_missing 'nvlink target="0000:99:00.0"> leads to a GPU .* not in this host'
refused nvl_self 'target="0000:03:00.0" is the GPU itself'
refused nvl_junk 'target="nowhere" is not a PCI bus id'
for f in good nvl_peer nvl_switch; do
  hrun out topo --backend sim --machine "$f.xml"
  [ $rc -eq 0 ] && ok || { bad "$f.xml does not load (exit $rc)"; cat out; }
done
hrun out topo --backend sim --machine nvl_peer.xml
has out "NV4" && ok || { bad "an NVLink between two GPUs of the file is not modelled"; cat out; }
# the sample dumps of real machines still load
for f in "$src"/tests/data/topo/*.xml; do
  hrun out topo --backend sim --machine "$f"
  [ $rc -eq 0 ] && ok || { bad "$(basename "$f") no longer loads"; cat out; }
done
# validate against a broken file no longer says all is well
hrun out validate --backend sim --machine dup_rank.xml --quick
[ $rc -ne 0 ] && ! has out "no anomaly" && has out 'a second <gpu rank="1">' && ok ||
  { bad "validate on a file with a repeated rank: exit $rc"; cat out; }
finish
