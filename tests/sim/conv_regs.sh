#!/usr/bin/env bash
# sim.conv_regs: the sim's conv2d occupancy table (engine/dev/sim/sim_conv_regs.h,
# a hand copy of ptxas's register counts) against the compiled kernels. It
# compiles conv2d's two kernel files, engine/dev/cuda/cuda_nn_conv_igemm.cu
# (k_igemm) and cuda_nn_conv_halo.cu (k_halo, k_halo_wgrad), again with the
# very commands CMake built them with (compile_commands.json), their objects
# thrown away and ptxas asked for its counts (-Xptxas -v: nvcc alone, no
# cuobjdump, no GPU), and conv_regs.c compares each kernel instance's blocks
# an SM with the price's, reading the two files' ptxas outputs as one.
# Usage: conv_regs.sh BUILD_DIR CONV_REGS_EXE
set -euo pipefail
build=$1 checker=$2
[[ -f $build/compile_commands.json ]] || { echo "conv_regs.sh: no $build/compile_commands.json" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

: >"$tmp/ptxas.txt"
for name in igemm halo; do
    file=engine/dev/cuda/cuda_nn_conv_$name.cu
    # The directory, then the command's words one a line, its -o OUT left out.
    python3 - "$build/compile_commands.json" "$file" >"$tmp/cmd" <<'PY'
import json, shlex, sys
for e in json.load(open(sys.argv[1])):
    if e["file"].endswith(sys.argv[2]):
        words = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        i = words.index("-o")
        print(e["directory"])
        print("\n".join(words[:i] + words[i + 2:]))
        break
else:
    sys.exit("conv_regs.sh: compile_commands.json has no %s (a build without the cuda backend?)" % sys.argv[2])
PY
    mapfile -t words <"$tmp/cmd"
    dir=${words[0]} cmd=("${words[@]:1}")
    if ! (cd "$dir" && "${cmd[@]}" -o "$tmp/$name.o" -Xptxas -v) >"$tmp/$name.txt" 2>&1; then
        cat "$tmp/$name.txt" >&2
        echo "conv_regs.sh: compiling $file failed" >&2
        exit 1
    fi
    cat "$tmp/$name.txt" >>"$tmp/ptxas.txt"
done
"$checker" "$tmp/ptxas.txt"
