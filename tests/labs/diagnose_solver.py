#!/usr/bin/env python3
"""diagnose_solver.py - lab 12's "solver": a diagnosis derived from the
evidence the step showed, as a learner reads it - the tables of `mgpulab run
12 --step 1 --json` - never from the seed, the fault or the learner's name.

  diagnose_solver.py RUN.json          -> component which tool value (one line, tab-separated)
  diagnose_solver.py RUN.json --wrong  -> three wrong answers, one line each:
                                          KIND<TAB>component which tool value

Rules, in the order an engineer would apply them: the topology first (a port
DOWN or below its rate, GPUDirect RDMA off, a GPU's PCIe link or NVLinks
unlike its peers', peer access lost), then NCCL's transport, then the
measurements (a host copy below the reference, one rank's own work slow, one
rank slow in both network exchanges: its NIC).
"""
import json
import sys


def tables(path):
    doc = json.load(open(path))
    out = {}
    for r in doc["steps"][0].get("results", []):
        if r.get("kind") == "table":
            t = r["doc"]
            out[t["title"].split(" (")[0].split(",")[0]] = t
    return out


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def majority(values):
    best, count = None, 0
    for v in set(values):
        c = values.count(v)
        if c > count:
            best, count = v, c
    return best


def find(t, prefix):
    for k, v in t.items():
        if k.startswith(prefix):
            return v
    return None


def solve(t):
    gpus = find(t, "topo: GPUs")["rows"]        # GPU host PCIe NVLinks GDR nearest-NIC
    nics_t = find(t, "topo: NICs")
    nics = nics_t["rows"] if nics_t else []       # NIC host name state rate supports GDR
    for n in nics:
        if n[3] != "ACTIVE":
            return "nic", n[0][3:], "topo", n[3]
    for n in nics:
        if num(n[4]) is not None and num(n[5]) is not None and num(n[4]) < num(n[5]):
            return "nic", n[0][3:], "topo", n[4]
    if nics and all(n[6] == "no" for n in nics):
        return "gdr", "none", "topo", "no"
    links = [g[2] for g in gpus]
    if len(gpus) > 2 and len(set(links)) > 1:
        m = majority(links)
        odd = [g for g in gpus if g[2] != m]
        if len(odd) == 1:
            return "pcie", odd[0][0][3:], "topo", odd[0][2]
    nvl = [g[3] for g in gpus]
    if len(gpus) > 2 and len(set(nvl)) > 1:
        odd = [g for g in gpus if g[3] != majority(nvl)]
        if len(odd) == 1:
            return "nvlink", odd[0][0][3:], "topo", odd[0][3]
    peer = find(t, "topo: peer access")["rows"][0]
    if num(peer[1]) > num(peer[2]):
        return "p2p", "none", "topo", peer[1]
    for row in find(t, "nccl:")["rows"]:
        if row[0] == "network" and row[1] == "Socket" and row[2] == "IB":
            return "socket", "none", "nccl", "Socket"
    for row in find(t, "copy: host")["rows"]:        # GPU this reference
        if num(row[1]) is not None and num(row[2]) and num(row[1]) < 0.9 * num(row[2]):
            return "pcie", row[0][3:], "copy", row[1]
    ranks = find(t, "ranks:")["rows"]                 # rank copy ref A Aref B Bref
    for row in ranks:
        if num(row[1]) is not None and num(row[2]) and num(row[1]) < 0.8 * num(row[2]):
            return "straggler", row[0], "ranks", row[1]
    for row in ranks:
        a, ar, b, br = (num(x) for x in row[3:7])
        if a is not None and b is not None and a < 0.9 * ar and b < 0.9 * br:
            nic = gpus[int(row[0])][5]
            return "nic", nic[3:], "ranks", row[3]
    raise SystemExit("solver: no evidence of a fault in the step's tables")


def wrong(t, right):
    comp, which, tool, value = right
    gpus = find(t, "topo: GPUs")["rows"]
    other = "pcie" if comp != "pcie" else "nvlink"
    out = [("component", (other, which, tool, value))]
    if which == "none":
        out.append(("which", (comp, "0", tool, value)))
    else:
        count = {"nic": len((find(t, "topo: NICs") or {"rows": []})["rows"]),
                 "straggler": len(find(t, "ranks:")["rows"])}.get(comp, len(gpus))
        out.append(("which", (comp, str((int(which) + 1) % max(count, 2)), tool, value)))
    # a healthy number: a host copy, else a rank's own copy, that reads as the reference does
    healthy = [("copy", r[1]) for r in find(t, "copy: host")["rows"] if r[1] == r[2]]
    healthy += [("ranks", r[1]) for r in find(t, "ranks:")["rows"] if r[1] == r[2]]
    out.append(("value", (comp, which) + healthy[0]))
    return out


if __name__ == "__main__":
    t = tables(sys.argv[1])
    right = solve(t)
    if len(sys.argv) > 2 and sys.argv[2] == "--wrong":
        for kind, ans in wrong(t, right):
            print("\t".join((kind,) + ans))
    else:
        print("\t".join(right))
