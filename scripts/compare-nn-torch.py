#!/usr/bin/env python3
"""compare-nn-torch.py - mgpulab's training ops next to torch on the same
GPU in one call, and the sim's prediction for that GPU next to both.

    python3 scripts/compare-nn-torch.py [MGPULAB] [--machine PRESET]

Runs bench/nn_bench.lua three ways: on cuda (the measurement), on the sim
with phantom tensors (the compute-time model's prediction for the preset's
GPU, nothing computed), and the same cases in torch (CUDA events, 3 warm-up
calls, the same repetitions). f32 stays f32 on both sides (TF32 off, as
mgpulab's f32 GEMM); the ResNet is the same architecture (conv-BN-ReLU
basic blocks, 1x1 downsampling, no conv bias), torch eager with cuDNN.
Runs ours and torch's alternately, three rounds (MGPU_COMPARE_ROUNDS), and
prints one table of medians: mgpulab ms and its spread, torch ms and its
spread, torch/mgpulab (>= 1 means mgpulab is faster), the sim's ms and its
error against the measurement; the targets of issues 11 and 33 are marked
(GEMM >= 0.95x torch, ResNet step >= 0.7x, row and streaming ops >= 1.0x,
conv2d >= 0.8x, sim within 15 %). MGPU_COMPARE_JSON=FILE also writes every run's figures;
MGPU_COMPARE_ONLY=conv runs the conv2d cases alone, =ops the streaming and row ops.
Exit status 0 always: it reports, the reader judges."""
import json
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
mgpulab = args[0] if args else os.path.join(here, ".gpu", "mgpulab")


def local_preset():
    """The sim preset of the GPU this runs on: its prediction must be priced
    for this card (an H100's 3.35 TB/s HBM3, an H200's 4.8 TB/s HBM3e). An
    H100 round priced on the H200 preset read 31 % fast on memory-bound ops."""
    try:
        name = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=30).stdout.splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        name = ""
    for key, preset in (("H200", "dgx-h200"), ("H100", "dgx-h100")):
        if key in name:
            return preset, name
    return "dgx-h200", name or "an unknown GPU"


if "--machine" in sys.argv:
    machine = sys.argv[sys.argv.index("--machine") + 1]
    gpu_name = "(--machine given)"
else:
    machine, gpu_name = local_preset()
print(f"# the sim's prediction: preset {machine}, for {gpu_name}")
lua = os.path.join(here, "bench", "nn_bench.lua")
# MGPU_COMPARE_ONLY=conv: the conv2d cases alone (a kernel's quick round)
# MGPU_COMPARE_ONLY=ops: the streaming and row ops alone (no GEMM, conv, attention or ResNet);
# =resnet: the ResNet steps alone
ONLY = os.environ.get("MGPU_COMPARE_ONLY", "")
ONLY_CASES = {"conv": "conv*", "ops": "relu*,add*,bias_add*,layernorm*,rmsnorm*,softmax*", "resnet": "resnet*"}
if ONLY and ONLY not in ONLY_CASES:
    raise SystemExit(f"MGPU_COMPARE_ONLY={ONLY!r}: use one of {', '.join(ONLY_CASES)}")


def run_mgpulab(backend, mode):
    cmd = [mgpulab, "spmd", lua, "--backend", backend, "--ranks", "1", "--time-limit", "900"]
    if backend == "sim":
        cmd += ["--machine", machine]
    cmd += ["--", mode] + ([ONLY_CASES[ONLY]] if ONLY in ONLY_CASES else [])
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=1200,
                         env=dict(os.environ, MGPULAB_LABS=os.path.join(here, "labs")))
    m = re.search(r"^\[rank 0\] result (\{.*\})$", out.stdout, re.M)
    if not m:
        print(out.stdout + out.stderr)
        raise SystemExit(f"{' '.join(cmd)}: no result row (exit {out.returncode})")
    return {c["name"]: c["ms"] for c in json.loads(m.group(1))["cases"]}


# bench/nn_bench.lua's conv shapes, {N, C, H, W, K, R, stride}, pad R // 2
CONV_SHAPES = [
    (256, 3, 32, 32, 16, 3, 1), (256, 16, 32, 32, 16, 3, 1), (256, 16, 32, 32, 32, 3, 2), (256, 16, 32, 32, 32, 1, 2),
    (256, 32, 16, 16, 32, 3, 1), (256, 32, 16, 16, 64, 3, 2), (256, 64, 8, 8, 64, 3, 1), (256, 64, 32, 32, 64, 3, 1),
    (32, 64, 8, 8, 64, 3, 1), (32, 16, 32, 32, 16, 3, 1),
]


def conv_cases(res, timed, dt):
    """cuDNN's conv forward, its weight gradient alone and dx with dw
    (aten.convolution_backward with those output masks), as nn_bench.lua."""
    import torch
    dev = "cuda"
    for d in ("f32", "bf16"):
        for n, c, h, w, k, r, st in CONV_SHAPES:
            pad = r // 2
            p, q = (h + 2 * pad - r) // st + 1, (w + 2 * pad - r) // st + 1
            x = torch.randn(n, c, h, w, device=dev, dtype=dt[d])
            wt = torch.randn(k, c, r, r, device=dev, dtype=dt[d])
            dy = torch.randn(n, k, p, q, device=dev, dtype=dt[d])
            name = f"conv {d} {n}x{c}x{h}x{w}>{k} {r}x{r} s{st}"

            def back(mask):
                return lambda: torch.ops.aten.convolution_backward(dy, x, wt, None, [st, st], [pad, pad], [1, 1],
                                                                   False, [0, 0], 1, mask)
            res[name + " fwd"] = timed(lambda: torch.nn.functional.conv2d(x, wt, stride=st, padding=pad), 10)
            res[name + " dw"] = timed(back([False, True, False]), 10)
            res[name + " dx+dw"] = timed(back([True, True, False]), 10)


def torch_cases():
    import torch
    import torch.nn as tnn
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = "cuda"

    def timed(fn, reps):
        for _ in range(3):
            fn()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(reps):
            fn()
        b.record()
        b.synchronize()
        return a.elapsed_time(b) / reps

    dt = {"bf16": torch.bfloat16, "f32": torch.float32}
    res = {}
    if ONLY == "conv":
        conv_cases(res, timed, dt)
        return res

    def gemm(d, m, n, k, reps):
        a, b = torch.randn(m, k, device=dev, dtype=dt[d]), torch.randn(k, n, device=dev, dtype=dt[d])
        c = torch.empty(m, n, device=dev, dtype=dt[d])
        res[f"gemm {d} {m}x{n}x{k}"] = timed(lambda: torch.matmul(a, b, out=c), reps)

    ops_only = ONLY == "ops"
    if ONLY == "resnet":
        resnet_cases(res, timed)
        return res
    if not ops_only:
        gemm("bf16", 4096, 4096, 4096, 20)
        gemm("bf16", 8192, 28672, 8192, 5)
        gemm("bf16", 1024, 1024, 1024, 50)
        gemm("bf16", 2048, 8192, 2048, 20)
        gemm("f32", 4096, 4096, 4096, 5)
        x = torch.randn(256, 64, 32, 32, device=dev, dtype=torch.bfloat16)
        w = torch.randn(64, 64, 3, 3, device=dev, dtype=torch.bfloat16)
        res["conv2d bf16 256x64x32x32 3x3"] = timed(lambda: torch.nn.functional.conv2d(x, w, padding=1), 10)
        del x, w
        conv_cases(res, timed, dt)
    r = torch.randn(64 << 20, device=dev, dtype=torch.bfloat16)
    res["relu bf16 64M"] = timed(lambda: torch.relu(r), 20)
    a32, b32 = torch.randn(32 << 20, device=dev), torch.randn(32 << 20, device=dev)
    res["add f32 32M"] = timed(lambda: b32.add_(a32), 20)
    xn = torch.randn(16384, 4096, device=dev, dtype=torch.bfloat16)
    ln = tnn.LayerNorm(4096, device=dev, dtype=torch.bfloat16)
    rms = tnn.RMSNorm(4096, device=dev, dtype=torch.bfloat16)
    with torch.no_grad():
        res["layernorm bf16 16384x4096"] = timed(lambda: ln(xn), 20)
        res["rmsnorm bf16 16384x4096"] = timed(lambda: rms(xn), 20)
    del xn
    sm = torch.randn(65536, 2048, device=dev, dtype=torch.bfloat16)
    smask = torch.ones(2048, 2048, device=dev, dtype=torch.bool).tril().repeat(32, 1)
    res["softmax bf16 65536x2048"] = timed(lambda: torch.softmax(sm * (1 / 128 ** 0.5), dim=-1), 10)
    # torch has no causal softmax kernel: the mask and the softmax, as attention below writes it
    res["softmax causal bf16 65536x2048"] = timed(
        lambda: torch.softmax((sm * (1 / 128 ** 0.5)).masked_fill(~smask, float("-inf")), dim=-1), 10)
    del smask
    sp, sdp = torch.softmax(sm, dim=-1), torch.randn_like(sm)
    res["softmax backward bf16 65536x2048"] = timed(
        lambda: torch._softmax_backward_data(sdp, sp, -1, torch.bfloat16), 10)
    del sm, sp, sdp

    def norm_backward(mod, d=torch.bfloat16):
        xg = torch.randn(16384, 4096, device=dev, dtype=d, requires_grad=True)
        y, dy = mod(xg), torch.randn(16384, 4096, device=dev, dtype=d)
        params = [xg] + list(mod.parameters())
        return timed(lambda: torch.autograd.grad(y, params, dy, retain_graph=True), 20)
    res["layernorm backward bf16 16384x4096"] = norm_backward(ln)
    res["rmsnorm backward bf16 16384x4096"] = norm_backward(rms)
    res["layernorm backward f32 16384x4096"] = norm_backward(tnn.LayerNorm(4096, device=dev), torch.float32)
    res["rmsnorm backward f32 16384x4096"] = norm_backward(tnn.RMSNorm(4096, device=dev), torch.float32)
    rx, rdy = torch.randn(64 << 20, device=dev, dtype=torch.bfloat16), torch.randn(64 << 20, device=dev, dtype=torch.bfloat16)
    res["relu backward bf16 64M"] = timed(lambda: torch.ops.aten.threshold_backward(rdy, rx, 0), 20)
    del rx, rdy
    bx, bb = torch.randn(16384, 4096, device=dev, dtype=torch.bfloat16), torch.randn(4096, device=dev, dtype=torch.bfloat16)
    res["bias_add bf16 16384x4096"] = timed(lambda: bx + bb, 20)
    del bx, bb
    if ops_only:
        return res
    q = torch.randn(32, 2048, 128, device=dev, dtype=torch.bfloat16)
    mask = torch.ones(2048, 2048, device=dev, dtype=torch.bool).tril()

    def attn():  # written plainly, as mgpulab's
        s = torch.bmm(q, q.transpose(1, 2)) * (1 / 128 ** 0.5)
        p = torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1)
        return torch.bmm(p, q)
    res["attention bf16 b4 h8 t2048 d128"] = timed(attn, 10)

    resnet_cases(res, timed)
    return res


def resnet_cases(res, timed):
    import torch
    dev = "cuda"
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from torch_resnet import resnet as torch_resnet

    def resnet(depth):
        return torch_resnet(depth).to(dev)

    for depth in (8, 20):
        model = resnet(depth)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        xi = torch.randn(256, 3, 32, 32, device=dev)
        yi = torch.randint(0, 10, (256,), device=dev)

        def step():
            opt.zero_grad(set_to_none=True)
            torch.nn.functional.cross_entropy(model(xi), yi).backward()
            opt.step()
        res[f"resnet-{depth} step f32 batch 256"] = timed(step, 5)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


# Alternate ours and torch's, three times each: one run's times move with
# the card's clocks and whatever else runs, so a single pair can mislead.
rounds = int(os.environ.get("MGPU_COMPARE_ROUNDS", "3"))
ours_runs, theirs_runs = [], []
for k in range(rounds):
    ours_runs.append(run_mgpulab("cuda", "real"))
    theirs_runs.append(torch_cases())
    import torch
    torch.cuda.empty_cache()
    print(f"# round {k + 1}: " + "; ".join(f"{n} {ours_runs[-1][n]:.4f}/{theirs_runs[-1].get(n, float('nan')):.4f}"
                                             for n in ours_runs[-1]), flush=True)
sim = run_mgpulab("sim", "phantom")


def spread(xs):
    """(max - min) / median, in per cent"""
    m = median(xs)
    return (max(xs) - min(xs)) / m * 100 if m else float("nan")


print(f"# medians of {rounds} alternating runs; spread = (max - min) / median")
print(f"{'case':44} {'mgpulab ms':>11} {'spread':>7} {'torch ms':>10} {'spread':>7} {'torch/ours':>10} "
      f"{'sim ms':>9} {'sim err':>8}  target")
rows = {}
for name in ours_runs[0]:
    mine = [r[name] for r in ours_runs if name in r]
    tv = [r[name] for r in theirs_runs if name in r]
    ms, t = median(mine), median(tv) if tv else None
    s = sim.get(name)
    ratio = t / ms if t else float("nan")
    err = (s - ms) / ms * 100 if s else float("nan")
    target = ""
    if name.startswith("conv"):
        target = "ours >= 0.8x torch: " + ("met" if ratio >= 0.8 else "MISSED")
    elif name.startswith("gemm bf16 4096x4096") or name.startswith("gemm bf16 8192x28672"):
        target = "ours >= 0.95x torch: " + ("met" if ratio >= 0.95 else "MISSED")
    elif name.startswith("resnet"):
        target = "ours >= 0.7x torch: " + ("met" if ratio >= 0.7 else "MISSED")
    elif re.match(r"(softmax|layernorm|rmsnorm|relu|add|bias_add)", name):
        target = "ours >= 1.0x torch: " + ("met" if ratio >= 1.0 else "MISSED")
    target += ("; " if target else "") + "sim within 15 %: " + ("met" if abs(err) <= 15 else "MISSED")
    print(f"{name:44} {ms:11.4f} {spread(mine):6.1f}% {t if t else float('nan'):10.4f} "
          f"{spread(tv) if tv else float('nan'):6.1f}% {ratio:10.2f} {s if s else float('nan'):9.4f} {err:7.1f}%  {target}")
    rows[name] = {"ours": mine, "torch": tv, "sim": s}
if os.environ.get("MGPU_COMPARE_JSON"):
    with open(os.environ["MGPU_COMPARE_JSON"], "w") as f:
        json.dump({"gpu": gpu_name, "preset": machine, "cases": rows}, f, indent=1)
