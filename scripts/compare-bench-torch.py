#!/usr/bin/env python3
"""compare-bench-torch.py - time torch.distributed collectives (NCCL) the way
nccl-tests and `mgpulab bench` do, and compare busbw with `mgpulab bench --json`.

Run on the GPU machine (python3 with torch and NCCL):

    mgpulab bench all_reduce -b 1M -e 1G -f 2 --json > one.json
    mgpulab bench all_reduce --launcher emulate --ranks 4 -b 1M -e 1G -f 2 --json > four.json
    python3 scripts/compare-bench-torch.py --ranks 1 one.json
    python3 scripts/compare-bench-torch.py --ranks 4 --emulate four.json

Each rank is its own process (RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT);
--emulate gives every rank its own NCCL_HOSTID and NCCL_SOCKET_IFNAME=lo, all
on the GPUs present (rank r on GPU r mod count), so NCCL treats them as
separate nodes, as mgpulab's emulate launcher does. NCCL_NVLS_ENABLE=0 is
kept in every process. Per size: a warm-up, then -n calls between two CUDA
events on the collective's stream, time = elapsed / n (what mgpulab's events
measure), the mean over ranks; algbw = size / time, busbw = algbw * factor.
The table prints torch's and mgpulab's figures and the ratio of algbw (the busbw
ratio; on one rank busbw is 0) for the half torch also runs (in-place for
all_reduce, broadcast and reduce; out-of-place for the rest);
the exit status is 1 when a size >= 1 MiB has a ratio below 0.97.
Without JSON files it only prints torch's figures (sizes from -b/-e/-f).
"""
import argparse
import json
import os
import socket
import subprocess
import sys

FACTORS = {
    "all_reduce": lambda n: 2.0 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
}
IN_PLACE = {"all_reduce", "broadcast", "reduce"}  # how torch.distributed runs them
TYPES = {"float": "float32", "half": "float16", "bfloat16": "bfloat16", "int32": "int32"}


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper().rstrip("B")
    return int(t[:-1]) * units[t[-1]] if t and t[-1] in units else int(t)


def worker(args):
    """One rank: time each size, print a JSON line per size from rank 0."""
    import torch
    import torch.distributed as dist

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dev = rank % torch.cuda.device_count()
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", device_id=torch.device("cuda", dev))
    dtype = getattr(torch, TYPES[args.datatype])
    esize = torch.tensor([], dtype=dtype).element_size()
    coll = args.coll
    for size in args.sizes:
        count = size // esize
        per = count // world
        if coll in ("all_gather",):
            send = torch.ones(per, dtype=dtype, device="cuda")
            recv = torch.empty(per * world, dtype=dtype, device="cuda")
            nbytes = per * world * esize
            call = lambda: dist.all_gather_into_tensor(recv, send)
        elif coll == "reduce_scatter":
            send = torch.ones(per * world, dtype=dtype, device="cuda")
            recv = torch.empty(per, dtype=dtype, device="cuda")
            nbytes = per * world * esize
            call = lambda: dist.reduce_scatter_tensor(recv, send)
        elif coll == "alltoall":
            send = torch.ones(per * world, dtype=dtype, device="cuda")
            recv = torch.empty(per * world, dtype=dtype, device="cuda")
            nbytes = per * world * esize
            call = lambda: dist.all_to_all_single(recv, send)
        elif coll == "broadcast":
            buf = torch.ones(count, dtype=dtype, device="cuda")
            nbytes = count * esize
            call = lambda: dist.broadcast(buf, 0)
        elif coll == "reduce":
            buf = torch.ones(count, dtype=dtype, device="cuda")
            nbytes = count * esize
            call = lambda: dist.reduce(buf, 0)
        else:
            buf = torch.ones(count, dtype=dtype, device="cuda")
            nbytes = count * esize
            call = lambda: dist.all_reduce(buf)
        for _ in range(args.warmup):
            call()
        torch.cuda.synchronize()
        dist.barrier()
        stream = torch.cuda.current_stream()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(stream)
        for _ in range(args.iters):
            call()
        end.record(stream)
        end.synchronize()
        us = start.elapsed_time(end) * 1e3 / args.iters
        t = torch.tensor([us], dtype=torch.float64, device="cuda")
        dist.all_reduce(t)  # mean over ranks, as nccl-tests' -a 1
        us = t.item() / world
        alg = nbytes / 1e3 / us if us > 0 else 0.0
        if rank == 0:
            print(json.dumps({"size": nbytes, "time": us, "alg_bw": alg,
                              "bus_bw": alg * FACTORS[coll](world)}), flush=True)
    dist.destroy_process_group()


def run_torch(args):
    port = args.port
    if port == 0:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    procs = []
    for r in range(args.ranks):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE=str(args.ranks), LOCAL_RANK=str(r),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), NCCL_NVLS_ENABLE="0")
        if args.emulate:
            env.update(NCCL_HOSTID=f"mgpulab-emulated-{r}", NCCL_SOCKET_IFNAME="lo")
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--coll", args.coll, "--datatype",
               args.datatype, "-n", str(args.iters), "-w", str(args.warmup),
               "--sizes", ",".join(str(s) for s in args.sizes)]
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE if r == 0 else subprocess.DEVNULL,
                                      text=True))
    rows = []
    out, _ = procs[0].communicate(timeout=args.timeout)
    for p in procs[1:]:
        p.wait(timeout=args.timeout)
    for p in procs:
        if p.returncode != 0:
            sys.exit(f"compare-bench-torch: a torch rank failed (exit {p.returncode})")
    for line in out.splitlines():
        if line.startswith("{"):
            rows.append(json.loads(line))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="`mgpulab bench --json` outputs")
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--emulate", action="store_true", help="one NCCL_HOSTID per rank over lo")
    ap.add_argument("--coll", default=None, help="default: the JSON's collective, else all_reduce")
    ap.add_argument("--datatype", default="float", choices=sorted(TYPES))
    ap.add_argument("-b", default="1M")
    ap.add_argument("-e", default="1G")
    ap.add_argument("-f", type=int, default=2)
    ap.add_argument("-n", dest="iters", type=int, default=20)
    ap.add_argument("-w", dest="warmup", type=int, default=5)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--sizes", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        args.sizes = [int(s) for s in args.sizes.split(",") if s]
        return worker(args)

    ours = {}
    for path in args.files:
        d = json.load(open(path))
        args.coll = args.coll or d.get("collective")
        for r in d.get("rows", []):
            if r.get("type") == args.datatype:
                ours[r["size"]] = r
    args.coll = args.coll or "all_reduce"
    if args.coll not in FACTORS:
        sys.exit(f"compare-bench-torch: {args.coll} has no torch equivalent here")
    if ours:
        args.sizes = sorted(ours)
    else:
        b, e, args.sizes = parse_size(args.b), parse_size(args.e), []
        s = b
        while s <= e:
            args.sizes.append(s)
            s *= args.f
    theirs = {r["size"]: r for r in run_torch(args)}

    print(f"# {args.coll} {args.datatype}, {args.ranks} rank(s){' (emulated nodes)' if args.emulate else ''}")
    print(f"# {'size':>12} {'torch us':>10} {'torch busbw':>12} {'mgpulab us':>11} {'mgpulab busbw':>14} {'ratio':>7}")
    failed = 0
    for size in args.sizes:
        t = theirs.get(size) or theirs.get(min(theirs, key=lambda k: abs(k - size))) if theirs else None
        m = ours.get(size)
        if not t:
            continue
        line = f"  {size:>12} {t['time']:>10.2f} {t['bus_bw']:>12.2f}"
        if m:
            # Compare like with like: torch's all_reduce, broadcast and reduce
            # work in place, its gathers and scatters out of place. The ratio
            # is of algbw, which equals the busbw ratio (same factor) and
            # still means something on one rank, where busbw is 0 by definition.
            mo = m["in_place" if args.coll in IN_PLACE else "out_of_place"]
            ratio = mo["alg_bw"] / t["alg_bw"] if t.get("alg_bw", 0) > 0 else float("nan")
            low = size >= (1 << 20) and not ratio >= 0.97
            failed += low
            line += f" {mo['time']:>11.2f} {mo['bus_bw']:>14.2f} {ratio:>7.3f}{'  < 0.97' if low else ''}"
        print(line)
    if ours:
        print(f"# {failed} size(s) >= 1 MiB below 0.97 of torch" if failed else "# every size >= 1 MiB within 0.97 of torch")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
