#!/usr/bin/env bash
# sim.conv_regs: the sim's conv2d occupancy table (engine/dev/sim/sim_conv_regs.h,
# a hand copy of ptxas's register counts) against the compiled kernels. It
# compiles engine/dev/cuda/cuda_nn_conv_igemm.cu again with the very command
# CMake built it with (compile_commands.json), its object thrown away and
# ptxas asked for its counts (-Xptxas -v: nvcc alone, no cuobjdump, no GPU),
# and conv_regs.c compares each kernel instance's blocks an SM with the
# price's. Usage: conv_regs.sh BUILD_DIR CONV_REGS_EXE
set -euo pipefail
build=$1 checker=$2
[[ -f $build/compile_commands.json ]] || { echo "conv_regs.sh: no $build/compile_commands.json" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The directory, then the command's words one a line, its -o OUT left out.
python3 - "$build/compile_commands.json" >"$tmp/cmd" <<'EOF'
import json, shlex, sys
for e in json.load(open(sys.argv[1])):
    if e["file"].endswith("engine/dev/cuda/cuda_nn_conv_igemm.cu"):
        words = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        i = words.index("-o")
        print(e["directory"])
        print("\n".join(words[:i] + words[i + 2:]))
        break
else:
    sys.exit("conv_regs.sh: compile_commands.json has no cuda_nn_conv_igemm.cu (a build without the cuda backend?)")
EOF
mapfile -t words <"$tmp/cmd"
dir=${words[0]} cmd=("${words[@]:1}")

if ! (cd "$dir" && "${cmd[@]}" -o "$tmp/igemm.o" -Xptxas -v) >"$tmp/ptxas.txt" 2>&1; then
    cat "$tmp/ptxas.txt" >&2
    echo "conv_regs.sh: compiling cuda_nn_conv_igemm.cu failed" >&2
    exit 1
fi
"$checker" "$tmp/ptxas.txt"
