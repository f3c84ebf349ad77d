#!/usr/bin/env bash
# topo_compare.sh - scripts/compare-topo reads both layouts: a print compared
# with itself agrees (exit 0); a changed link or affinity is a difference
# (exit 1, named); an unreadable input is exit 2.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cmp=$src/scripts/compare-topo
tmp=$(mktemp -d /tmp/mgpu-topo-cmp.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
check() { if eval "$2"; then pass=$((pass+1)); else echo "FAIL: $1"; fail=$((fail+1)); fi; }

"$bin" topo --backend sim --machine dgx-h100 >"$tmp/mine.txt" 2>&1
# An nvidia-smi print: no banner, no peer matrix, NICs numbered differently.
grep -v '^#' "$tmp/mine.txt" | sed '/^Peer access/,$d' >"$tmp/smi.txt"
out=$(python3 "$cmp" --smi-file "$tmp/smi.txt" --mgpulab-file "$tmp/mine.txt"); rc=$?
check "identical prints agree (rc=$rc): $out" '[ $rc -eq 0 ] && grep -q "agree on 8 GPU(s) and 8 NIC(s)" <<<"$out"'

# Change GPU0-GPU1 from NV18 to NV12 and GPU2's NUMA affinity.
awk -F'\t' 'BEGIN{OFS="\t"} /^GPU0\t/{$3="NV12"} /^GPU2\t/{$(NF-2)="1"} {print}' "$tmp/smi.txt" >"$tmp/smi2.txt"
out=$(python3 "$cmp" --smi-file "$tmp/smi2.txt" --mgpulab-file "$tmp/mine.txt"); rc=$?
check "a changed link is a difference (rc=$rc)" '[ $rc -eq 1 ] && grep -q "GPU0-GPU1: nvidia-smi NV12, mgpulab NV18" <<<"$out"'
check "a changed NUMA affinity is a difference" 'grep -q "GPU2 NUMA Affinity: nvidia-smi 1, mgpulab 0" <<<"$out"'

# NICs are matched by name: renumbering them in the legend is still a match
# only when the names line up; a NIC mgpulab lacks is a difference.
sed 's/^  NIC7: mlx5_7$/  NIC7: mlx5_99/' "$tmp/smi.txt" >"$tmp/smi3.txt"
out=$(python3 "$cmp" --smi-file "$tmp/smi3.txt" --mgpulab-file "$tmp/mine.txt"); rc=$?
check "a NIC only nvidia-smi has is a difference (rc=$rc)" '[ $rc -eq 1 ] && grep -q "mlx5_99" <<<"$out"'

out=$(python3 "$cmp" --smi-file "$tmp/none.txt" --mgpulab-file "$tmp/mine.txt" 2>&1); rc=$?
check "a missing input is exit 2 (rc=$rc)" '[ $rc -eq 2 ]'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
