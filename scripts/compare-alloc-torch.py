#!/usr/bin/env python3
"""compare-alloc-torch.py - malloc/free pairs per second: mgpulab's caching
allocator (tests/gpu/gpu_mem_rate) next to torch's CUDACachingAllocator on
the same GPU, the same sizes and the same loops.

    python3 scripts/compare-alloc-torch.py [.gpu/bin/gpu_mem_rate] [seconds per case]

Torch is measured in C++ (an inline extension calling
c10::cuda::CUDACachingAllocator::raw_alloc_with_stream / raw_delete in the
loop gpu_mem_rate runs), so neither side pays an interpreter. Where the
extension cannot be built (no compiler or headers), the Python-level
torch.cuda.caching_allocator_alloc/delete is measured instead and the table
says so: that figure includes Python's call overhead. Each allocator
configuration runs in its own process (torch reads PYTORCH_CUDA_ALLOC_CONF
once)."""
import json
import os
import subprocess
import sys

CPP = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#include <chrono>
namespace A = c10::cuda::CUDACachingAllocator;
static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double same_size(int64_t bytes, double seconds) {
    auto s = c10::cuda::getCurrentCUDAStream();
    A::raw_delete(A::raw_alloc_with_stream(bytes, s));
    double t0 = now(); int64_t n = 0;
    for (;;) {
        for (int k = 0; k < 256; k++) A::raw_delete(A::raw_alloc_with_stream(bytes, s));
        n += 256;
        double t = now() - t0;
        if (t >= seconds) return n / t;
    }
}
double churn(double seconds) {
    auto s = c10::cuda::getCurrentCUDAStream();
    const int LIVE = 256;
    void *live[LIVE];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t size_of[64];
    for (int i = 0; i < 64; i++) size_of[i] = (size_t)512 << (i * 17 / 64);
    for (int i = 0; i < LIVE; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        live[i] = A::raw_alloc_with_stream(size_of[(x >> 33) % 64] + (x >> 20) % 512, s);
    }
    double t0 = now(); int64_t n = 0; double t = 0;
    for (;;) {
        for (int k = 0; k < 256; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            int i = (int)((x >> 40) % LIVE);
            A::raw_delete(live[i]);
            live[i] = A::raw_alloc_with_stream(size_of[(x >> 33) % 64] + (x >> 20) % 512, s);
        }
        n += 256;
        t = now() - t0;
        if (t >= seconds) break;
    }
    for (int i = 0; i < LIVE; i++) A::raw_delete(live[i]);
    return n / t;
}
"""

CHILD = r"""
import json, sys, time, torch
sizes, seconds = json.loads(sys.argv[1]), float(sys.argv[2])
torch.cuda.init(); torch.empty(1, device="cuda")
out = {"how": "c++", "rows": {}}
try:
    from torch.utils.cpp_extension import load_inline
    ext = load_inline("mgpu_alloc_rate", cpp_sources=[sys.argv[3]], functions=["same_size", "churn"],
                      with_cuda=True, verbose=False)
    for b in sizes:
        out["rows"]["same-size/%d" % b] = ext.same_size(b, seconds)
    out["rows"]["churn/0"] = ext.churn(seconds)
except Exception as e:  # no compiler or headers: the Python-level API
    out = {"how": "python (%s)" % type(e).__name__, "rows": {}}
    alloc, free = torch.cuda.caching_allocator_alloc, torch.cuda.caching_allocator_delete
    for b in sizes:
        free(alloc(b)); n = 0; t0 = time.perf_counter()
        while True:
            for _ in range(256):
                free(alloc(b))
            n += 256
            t = time.perf_counter() - t0
            if t >= seconds:
                break
        out["rows"]["same-size/%d" % b] = n / t
print(json.dumps(out))
"""

TORCH_CONF = {"backend:native": "", "backend:native,expandable_segments:True": "expandable_segments:True"}


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else ".gpu/bin/gpu_mem_rate"
    seconds = sys.argv[2] if len(sys.argv) > 2 else "0.3"
    run = subprocess.run([binary, "cuda", seconds], capture_output=True, text=True)
    sys.stdout.write(run.stdout)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        print("compare-alloc-torch: gpu_mem_rate failed")
        return 1
    ours = json.loads(run.stdout.strip().splitlines()[-1])
    sizes = sorted({r["bytes"] for r in ours["rows"] if r["pattern"] == "same-size"})
    print("\n# mgpulab vs torch (pairs per second; ratio > 1: mgpulab faster)")
    print("%-42s %-10s %12s %14s %14s %7s  %s" % ("conf", "pattern", "bytes", "mgpulab", "torch", "ratio", "torch measured in"))
    status = 0
    for conf, tconf in TORCH_CONF.items():
        env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF=tconf)
        t = subprocess.run([sys.executable, "-c", CHILD, json.dumps(sizes), seconds, CPP], capture_output=True,
                           text=True, env=env)
        if t.returncode != 0:
            print("torch (%s) failed: %s" % (tconf or "default", t.stderr.strip()[-400:]))
            status = 1
            continue
        theirs = json.loads(t.stdout.strip().splitlines()[-1])
        for r in ours["rows"]:
            if r["conf"] != conf:
                continue
            key = "%s/%d" % (r["pattern"], r["bytes"])
            tv = theirs["rows"].get(key)
            ratio = "%.2f" % (r["pairs_per_s"] / tv) if tv else "-"
            print("%-42s %-10s %12d %14.0f %14s %7s  %s" % (conf, r["pattern"], r["bytes"], r["pairs_per_s"],
                                                         "%.0f" % tv if tv else "-", ratio, theirs["how"]))
    return status


if __name__ == "__main__":
    sys.exit(main())
