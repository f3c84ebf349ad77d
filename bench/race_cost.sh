#!/usr/bin/env bash
# race_cost.sh - what the stream-ordering race detector (mgpu/race.h) costs on
# lab 4's step: the reference reducer training the small ResNet on 4 ranks,
# run alternately with the detector (the default) and with --no-race, RUNS
# times each. Prints per variant the median CPU seconds of the whole run
# (every rank process: the detector's bookkeeping is host work) and the
# median step time the script reports (on a GPU: measured by events, so it
# shows host overhead that delays the launches; on the sim: modelled time,
# which the detector does not change), and the ratios. The target (issue 26):
# under 10 % on the step. Compare ratios from one run only - these machines
# are shared and noisy.
#
# usage: bench/race_cost.sh [BIN] [RUNS]   (MGPU_BENCH_ARGS: the machine,
#        default "--backend sim"; on a GPU "--backend cuda"; MGPU_BENCH_RANKS:
#        ranks, default 4 - on one GPU 1, or the ranks share it over sockets)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/mgpulab}
runs=${2:-5}
read -r -a machine <<<"${MGPU_BENCH_ARGS:---backend sim}"
export MGPULAB_LABS=$here/labs
python3 - "$bin" "$runs" "$here/labs/04-ddp/solutions/reducer.lua" "${MGPU_BENCH_RANKS:-4}" "${machine[@]}" <<'PY'
import json, os, resource, statistics, subprocess, sys
binary, runs, script, ranks, machine = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
# the lab's step-3 run of the small ResNet: 16 steps, global batch 16 per rank, 25 MiB buckets
cmd = [binary, "spmd", script, "--ranks", ranks, "--json", *machine, "--", "16", str(16 * int(ranks)), "small", "25"]

def once(flags):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd[:3] + flags + cmd[3:], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    doc = json.loads(out.stdout)
    if not doc.get("ok"):
        sys.exit("run failed: %s" % doc.get("reason"))
    step = [r["row"]["step_ms"] for r in doc["results"] if r["rank"] == 0 and "step_ms" in r["row"]]
    races = sum(s.get("races", 0) for s in doc.get("race_summary", {}).values())
    acc = sum(s.get("accesses", 0) for s in doc.get("race_summary", {}).values())
    return cpu, step[0], races, acc

res = {"on": [], "off": []}
for i in range(runs):
    for name, flags in (("on", []), ("off", ["--no-race"])):
        res[name].append(once(flags))
med = {k: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v)) for k, v in res.items()}
acc = res["on"][0][3]
print("lab 4's step (ResNet-8, %s rank(s), reference reducer), %d runs each, %s" % (ranks, runs, " ".join(machine)))
print("  %-14s %12s %14s" % ("", "CPU s (all)", "step ms"))
for k in ("off", "on"):
    print("  %-14s %12.2f %14.4f" % ("detector " + k, med[k][0], med[k][1]))
print("  %-14s %11.1f%% %13.1f%%" % ("cost", 100 * (med["on"][0] / med["off"][0] - 1), 100 * (med["on"][1] / med["off"][1] - 1)))
print("  accesses checked per run (all ranks): %d; races found: %d" % (acc, res["on"][0][2]))
PY
