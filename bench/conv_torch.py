#!/usr/bin/env python3
"""conv_torch.py - torch's (cuDNN's) times for bench/conv_harness.cu's cases,
timed as compare-nn-torch.py times them (TF32 off; 3 warm-up calls, 10
between two CUDA events; the median of 3 such). Prints
"torch NAME ms MS" lines. usage: conv_torch.py [FILTER]"""
import sys
import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
SHAPES = [
    (256, 3, 32, 32, 16, 3, 1), (256, 16, 32, 32, 16, 3, 1), (256, 16, 32, 32, 32, 3, 2), (256, 16, 32, 32, 32, 1, 2),
    (256, 32, 16, 16, 32, 3, 1), (256, 32, 16, 16, 64, 3, 2), (256, 64, 8, 8, 64, 3, 1), (256, 64, 32, 32, 64, 3, 1),
    (32, 64, 8, 8, 64, 3, 1), (32, 16, 32, 32, 16, 3, 1), (256, 64, 16, 16, 64, 3, 1), (64, 32, 32, 32, 64, 3, 1),
    (64, 64, 8, 8, 64, 3, 1), (256, 32, 16, 16, 64, 1, 2),
]
flt = sys.argv[1] if len(sys.argv) > 1 else ""


def timed(fn):
    for _ in range(3):
        fn()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t = []
    for _ in range(3):
        a.record()
        for _ in range(10):
            fn()
        b.record()
        b.synchronize()
        t.append(a.elapsed_time(b) / 10)
    return sorted(t)[1]


for d, dt in (("f32", torch.float32), ("bf16", torch.bfloat16)):
    for n, c, h, w, k, r, st in SHAPES:
        name = f"conv {d} {n}x{c}x{h}x{w}>{k} {r}x{r} s{st}"
        if flt not in name:
            continue
        pad = r // 2
        p, q = (h + 2 * pad - r) // st + 1, (w + 2 * pad - r) // st + 1
        x = torch.randn(n, c, h, w, device="cuda", dtype=dt)
        wt = torch.randn(k, c, r, r, device="cuda", dtype=dt)
        dy = torch.randn(n, k, p, q, device="cuda", dtype=dt)

        def back(mask):
            return lambda: torch.ops.aten.convolution_backward(dy, x, wt, None, [st, st], [pad, pad], [1, 1], False,
                                                               [0, 0], 1, mask)
        print(f"torch {name} fwd ms {timed(lambda: torch.nn.functional.conv2d(x, wt, stride=st, padding=pad)):.4f}")
        print(f"torch {name} dw ms {timed(back([False, True, False])):.4f}")
        print(f"torch {name} dx+dw ms {timed(back([True, True, False])):.4f}", flush=True)
