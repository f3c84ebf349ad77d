#!/usr/bin/env bash
# lab_claims.sh - the numbers the lab texts state hold on the sim (issue 27,
# part 3: each corrected claim with a test). A text that says "Llama's MLP
# is SwiGLU 28672" or "PyTorch's DDP makes one call more" is held here to
# what the lab's own runs show, so a later change to the model or the lab
# that makes the text wrong fails a test instead of misleading a learner.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
export MGPULAB_LABS=$src/labs MGPULAB_CHECKS=$src/checks
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
work=$XDG_STATE_HOME/mgpulab/work
"$bin" list >/dev/null 2>&1     # copies the exercises into the workspace

# Lab 6 step 3 times Llama-2-70B's layers: a SwiGLU MLP of 28672 (gate, up,
# down), not a GELU MLP of 4 x 8192 = 32768. Per rank of a TP group of 4, two
# layers hold 2 x (q 8192x2048 + k, v 8192x256 + o 2048x8192 + gate, up
# 8192x7168 + down 7168x8192 + two norms of 8192) bf16 gradients = 816.06 MiB
# (a GELU MLP of 32768 would make 656.06 MiB).
cp "$src/labs/06-tpdp/solutions/megatron.lua" "$work/06-tpdp/megatron.lua"
"$bin" run 6 --step topology --backend sim --machine 2x-dgx-h100 >"$tmp/l6" 2>&1
if grep -q 'SwiGLU MLP of 28672' "$tmp/l6" && grep -q 'gradients 816.06 MiB' "$tmp/l6"; then ok
else bad "lab 6 step 3 does not time Llama-2-70B's SwiGLU 28672: $(grep -m1 'gradients' "$tmp/l6")"; fi

# Lab 2 step 1 flags the note's "16 MiB ... 210.50 GB/s busbw ... 19200 us" as
# wrong: 19200 us is 0.87 GB/s; ~210 GB/s of busbw on 8 ranks is ~140 us. The
# sim's DGX H100 (busbw of that order) takes well under a millisecond.
"$bin" bench all_reduce -b 16M -e 16M --backend sim --machine dgx-h100 >"$tmp/b16" 2>&1
t16=$(awk '$1 == 16777216 { print $6 }' "$tmp/b16")
if awk -v t="${t16:-0}" 'BEGIN { exit !(t > 50 && t < 1000) }'; then ok
else bad "lab 2 step 1: the sim's 16 MiB all_reduce takes ${t16:-?} us, not the ~140 us the text derives"; fi

# Lab 1 step 2's nics: a real DGX H100 lists about 12 mlx5 ports - 8 compute
# NICs on the GPUs' switches and the 4 ports of two dual-port storage and
# in-band cards on the CPUs. The question counts the NICs on a GPU's own
# switch, so it is 8 there as on the preset: the preset's XML with the two
# cards added under the CPUs.
"$bin" topo --xml --backend sim --machine dgx-h100 2>/dev/null | python3 -c '
import sys
s = sys.stdin.read(); s = s[s.index("<system"):]
parts = s.split("</cpu>")
for i in range(len(parts) - 1):
    card = "<pci busid=\"0000:%02x:00.0\" class=\"0x020000\" vendor=\"0x15b3\" device=\"0x1021\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"><nic>" % (0x0c + 0x80 * i)
    for k in range(2):
        card += "<net name=\"mlx5_%d\" dev=\"%d\" speed=\"200000\" port=\"%d\" guid=\"0x%x\" maxconn=\"131072\" gdr=\"0\"/>" % (8 + 2 * i + k, 8 + 2 * i + k, k + 1, 0xb83fd20300a1c100 + 16 * i + k)
    parts[i] += card + "</nic></pci>"
print("</cpu>".join(parts))' >"$tmp/dgx12.xml"
cp "$src/labs/01-topology/solutions/nearest_nic.lua" "$work/01-topology/nearest_nic.lua"
"$bin" run 1 --step affinity --backend sim --machine "$tmp/dgx12.xml" --answer nics=8 >"$tmp/l1" 2>&1
"$bin" run 1 --step affinity --backend sim --machine "$tmp/dgx12.xml" --answer nics=12 >"$tmp/l1w" 2>&1
if [ "$(grep -c '^  NIC[0-9]* *mlx5' "$tmp/l1")" = 12 ] && ! grep -q 'PIX).*is not right' "$tmp/l1" &&
   grep -q 'PIX): "12" is not right' "$tmp/l1w"; then ok
else bad "lab 1 step 2 on a DGX H100 with storage NICs: $(grep -E '^(PASS|FAIL|AWAITING|ERROR)' "$tmp/l1" "$tmp/l1w")"; fi

# Lab 4 steps 3-4: the lab's reducer closes a bucket before the cap is passed
# (63.7 MiB of the wide ResNet in 3 buckets of 25 MiB); PyTorch's DDP starts
# with a 1 MiB bucket and closes one once it reaches the cap: 4 calls.
cp "$src/labs/04-ddp/solutions/reducer.lua" "$work/04-ddp/reducer.lua"
"$bin" run 4 --step buckets --backend sim --machine dgx-h100 --answer calls25=3 >"$tmp/l4" 2>&1
if grep -q '^PASS.*"3" is right - PyTorch.s DDP would make 4 all-reduces of the same 63.7 MiB' "$tmp/l4"; then ok
else bad "lab 4 step 4: $(grep -E '^(PASS|FAIL|AWAITING|ERROR)' "$tmp/l4")"; fi

# Lab 2 step 4: on a DGX H100 NCCL all-reduces 256 MiB with NVLS, busbw above
# NV18's 450 GB/s; with NCCL_NVLS_ENABLE=0 the ring stays under it. One link
# carries algbw x (n+1)/n each way (301.3 GB/s); NVLS's busbw at the links'
# peak would be 450 x 2(n-1)/(n+1) = 700. The questions wait without giving
# those away; a busbw given for the link is named as busbw. No NVSwitch, no
# NVLS: pcie-4gpu says so and passes.
sim=(--backend sim --machine dgx-h100)
"$bin" run 2 --step nvls "${sim[@]}" >"$tmp/l2u" 2>&1
row=$(grep -E '^  256 MiB ' "$tmp/l2u")
if echo "$row" | awk '{ exit !($3 ~ /^NVLS/ && $5 > 450 && $7 < 450) }'; then ok
else bad "lab 2 step 4: the 256 MiB row is not NVLS above 450 and the ring under it: $row"; fi
grep -E '^(AWAITING|  (saw|wanted|where|also))' "$tmp/l2u" | grep -qE '301|700' && bad "lab 2 step 4 unanswered shows an answer" || ok
"$bin" run 2 --step nvls "${sim[@]}" --answer link_gbs=468.68 --answer nvls_peak=450 >"$tmp/l2w" 2>&1
if grep -q 'that is busbw' "$tmp/l2w" && grep -q "that is the link's own peak" "$tmp/l2w" &&
   ! grep -E '^(FAIL|  (saw|wanted|where|also))' "$tmp/l2w" | grep -qE '301|700'; then ok
else bad "lab 2 step 4 wrong answers: $(grep -E '^(PASS|FAIL|AWAITING)' "$tmp/l2w")"; fi
"$bin" run 2 --step nvls "${sim[@]}" --answer link_gbs=301.3 --answer nvls_peak=700 >"$tmp/l2r" 2>&1
grep -q '^PASS' "$tmp/l2r" && grep -q 'NVLS reached 67 % of its peak busbw' "$tmp/l2r" && ok ||
  bad "lab 2 step 4 right answers: $(grep -E '^(PASS|FAIL|AWAITING)|NVLS reached' "$tmp/l2r")"
"$bin" run 2 --step nvls --backend sim --machine pcie-4gpu >"$tmp/l2p" 2>&1
grep -q '^PASS no NVLink SHARP on this machine' "$tmp/l2p" && ok || bad "lab 2 step 4 on pcie-4gpu: $(grep -E '^(PASS|FAIL|AWAITING|ERROR)' "$tmp/l2p")"

echo "# lab_claims: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
