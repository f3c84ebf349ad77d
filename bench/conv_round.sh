#!/bin/bash
# conv_round.sh - one GPU call's conv2d round: each conv_harness binary
# given (built here, carried; e.g. HEAD's and a baseline's), then torch's
# times for the same cases, and a table per binary (ours ms, torch ms,
# torch/ours, '*' below 0.8x). Raw lines under $OUT.
#   nvcc -O3 -std=c++17 -arch=sm_90 -Iengine -Iengine/include bench/conv_harness.cu -o build-X/h/head
#   run: bash bench/conv_round.sh build-X/h/head [build-X/h/base]   (carry build-X/h)
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name --format=csv,noheader > "$out/card.txt"
for b in "$@"; do n=$(basename "$b"); timeout 200 "$b" > "$out/$n.txt" 2>&1; echo "rc $?" >> "$out/$n.txt"; done
timeout 120 python3 bench/conv_torch.py > "$out/torch.txt" 2>&1
cat "$out/card.txt"
for b in "$@"; do
    n=$(basename "$b")
    echo "=== $n"
    python3 bench/conv_compare.py "$out/$n.txt" "$out/torch.txt"
    grep -E "FAIL|rc |all cases|error" "$out/$n.txt" | head -8
done
