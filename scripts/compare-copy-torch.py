#!/usr/bin/env python3
"""compare-copy-torch.py - measure torch copies the way `mgpulab copy` does and compare.

Run on the GPU machine (python3 with torch there). It times, with CUDA events
around LOOPS back-to-back copies, the median of SAMPLES samples:
  pinned host -> device   (compare: host_to_device_memcpy_ce)
  device -> pinned host   (compare: device_to_host_memcpy_ce)
  device -> same device   (compare: device_local_copy; also read+write = 2x)
  device 0 -> device 1    (compare: device_to_device_memcpy_write_ce [0][1]; 2+ GPUs)
in GB/s (1e9 bytes/s), at the buffer size, loop count and sample count of the
given `mgpulab copy --json` output (or of the options below).

Without MGPULAB_JSON it prints torch's figures as JSON. With it, it prints a
side-by-side table with the ratio mgpulab/torch per testcase, and exits 1 when
pinned host->device or device->host is not within --tolerance (3 %) of torch.

  mgpulab copy --json host_to_device_memcpy_ce device_to_host_memcpy_ce \\
      device_local_copy > copy.json
  python3 scripts/compare-copy-torch.py copy.json
"""
import argparse
import json
import statistics
import sys


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mgpulab_json", nargs="?", help="output of `mgpulab copy --json` to compare with")
    p.add_argument("--buffer-mib", type=int, default=512, help="buffer size in MiB (default 512, nvbandwidth's)")
    p.add_argument("--loops", type=int, default=16, help="copies per sample (default 16)")
    p.add_argument("--samples", type=int, default=3, help="samples, median reported (default 3)")
    p.add_argument("--device", type=int, default=0, help="GPU to measure (default 0)")
    p.add_argument("--tolerance", type=float, default=0.03, help="allowed |ratio - 1| for pinned H2D/D2H")
    p.add_argument("--torch-json", help="also write torch's figures to this file")
    a = p.parse_args()
    if a.buffer_mib < 1 or a.loops < 1 or a.samples < 1:
        p.error("--buffer-mib, --loops and --samples must be positive")
    return a


def load_mgpulab(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"compare-copy-torch: cannot read {path}: {e}")
    if doc.get("simulated"):
        sys.exit(f"compare-copy-torch: {path} comes from the sim backend ({doc.get('machine')}); "
                 "compare real measurements only (run mgpulab copy with --backend cuda)")
    return doc


def time_copies(torch, dst, src, loops, samples, warmup=4):
    """Median GB/s of `samples` samples of `loops` dst.copy_(src) between two events."""
    stream = torch.cuda.current_stream()
    for _ in range(warmup):
        dst.copy_(src, non_blocking=True)
    torch.cuda.synchronize()
    nbytes = src.numel() * src.element_size()
    rates = []
    for _ in range(samples):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record(stream)
        for _ in range(loops):
            dst.copy_(src, non_blocking=True)
        end.record(stream)
        end.synchronize()
        ms = start.elapsed_time(end)
        rates.append(nbytes * loops / (ms * 1e-3) / 1e9)
    if not torch.equal(dst.cpu() if dst.is_cuda else dst, src.cpu() if src.is_cuda else src):
        sys.exit("compare-copy-torch: torch copy produced wrong data")
    return statistics.median(rates), rates


def measure(a):
    try:
        import torch
    except ImportError:
        sys.exit("compare-copy-torch: python3 has no torch; run this on the GPU machine")
    if not torch.cuda.is_available():
        sys.exit("compare-copy-torch: torch sees no CUDA GPU")
    dev = torch.device("cuda", a.device)
    torch.cuda.set_device(dev)
    n = a.buffer_mib << 20
    out = {"tool": "torch", "torch_version": torch.__version__, "device": torch.cuda.get_device_name(dev),
           "buffer_bytes": n, "loop_count": a.loops, "samples": a.samples, "statistic": "median",
           "unit": "GB/s", "results": {}}
    host = torch.randint(0, 255, (n,), dtype=torch.uint8).pin_memory()
    gpu = torch.empty(n, dtype=torch.uint8, device=dev)
    gpu2 = torch.empty(n, dtype=torch.uint8, device=dev)
    res = out["results"]
    res["host_to_device_memcpy_ce"], _ = time_copies(torch, gpu, host, a.loops, a.samples)
    host_back = torch.empty(n, dtype=torch.uint8).pin_memory()
    res["device_to_host_memcpy_ce"], _ = time_copies(torch, host_back, gpu, a.loops, a.samples)
    res["device_local_copy"], _ = time_copies(torch, gpu2, gpu, a.loops, a.samples)
    out["device_local_copy_read_write"] = 2 * res["device_local_copy"]
    if torch.cuda.device_count() > 1 and a.device == 0:
        peer = torch.empty(n, dtype=torch.uint8, device=torch.device("cuda", 1))
        res["device_to_device_memcpy_write_ce"], _ = time_copies(torch, peer, gpu, a.loops, a.samples)
    return out


def mgpulab_value(doc, name, device):
    for t in doc.get("testcases", []):
        if t.get("name") != name or t.get("status") != "passed":
            continue
        m = t["matrices"][0]["values"]
        v = m[0][1] if name == "device_to_device_memcpy_write_ce" else m[0][device]
        return v
    return None


def main():
    a = parse_args()
    doc = load_mgpulab(a.mgpulab_json) if a.mgpulab_json else None
    if doc:  # measure exactly what mgpulab measured
        o = doc["options"]
        if o["buffer_bytes"] % (1 << 20):
            sys.exit("compare-copy-torch: the mgpulab run used a buffer that is not a whole MiB")
        a.buffer_mib, a.loops, a.samples = o["buffer_bytes"] >> 20, o["loop_count"], o["samples"]
    torch_res = measure(a)
    if a.torch_json:
        with open(a.torch_json, "w") as f:
            json.dump(torch_res, f, indent=2)
    if not doc:
        json.dump(torch_res, sys.stdout, indent=2)
        print()
        return 0

    print(f"copy bandwidth, GB/s (1e9 B/s): {a.buffer_mib} MiB buffers, {a.loops} copies per sample, "
          f"median of {a.samples}; GPU {a.device}: {torch_res['device']}; torch {torch_res['torch_version']}")
    print(f"{'testcase':36s} {'mgpulab':>10s} {'torch':>10s} {'ratio':>8s}")
    bad = []
    gated = ("host_to_device_memcpy_ce", "device_to_host_memcpy_ce")
    for name, tv in torch_res["results"].items():
        mv = mgpulab_value(doc, name, a.device)
        if mv is None:
            print(f"{name:36s} {'-':>10s} {tv:10.2f} {'-':>8s}  (not in the mgpulab run)")
            if name in gated:
                bad.append(f"{name}: missing from the mgpulab run")
            continue
        ratio = mv / tv
        mark = ""
        if name in gated and abs(ratio - 1) > a.tolerance:
            mark = f"  OUTSIDE {a.tolerance:.0%}"
            bad.append(f"{name}: ratio {ratio:.3f}")
        print(f"{name:36s} {mv:10.2f} {tv:10.2f} {ratio:8.3f}{mark}")
    lv = mgpulab_value(doc, "device_local_copy", a.device)
    if lv is not None:
        print(f"{'device_local_copy read+write':36s} {2 * lv:10.2f} {torch_res['device_local_copy_read_write']:10.2f}"
              f" {lv / torch_res['results']['device_local_copy']:8.3f}")
    if bad:
        print("FAIL: pinned host<->device not within "
              f"{a.tolerance:.0%} of torch: " + "; ".join(bad))
        return 1
    print(f"PASS: pinned host<->device within {a.tolerance:.0%} of torch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
