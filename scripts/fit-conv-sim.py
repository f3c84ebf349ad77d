#!/usr/bin/env python3
"""The sim's conv2d price against a GPU's measured times, and its refit.

    scripts/fit-conv-sim.py CONV_JSON MGPULAB [--fit [--write]] [--skip REGEX] [--machine PRESET]

CONV_JSON: scripts/compare-nn-torch.py's MGPU_COMPARE_JSON output (its
"cases": name -> {"ours": [ms, ...], ...}; "preset": the sim preset of the GPU
it ran on). MGPULAB: a built mgpulab. The sim's prices come from the binary
itself - `mgpulab spmd bench/nn_bench.lua --backend sim --machine PRESET
--ranks 1 -- phantom 'conv*'` - so the table is the C model's own
(engine/dev/sim/sim_conv_price.c, sim_conv_ns), never a copy of its formula.

Prints every conv case (measured median, the sim's price, the error) and how
many are within 15 %. With --fit it also fits the model's coefficients
(CONV_FIT in sim_conv_price.c) to the cases: a Nelder-Mead search over them,
each trial priced by the binary with MGPU_SIM_CONV_FIT set (the model's knob
for this script), minimising the squared log errors; then prints the new
table and the lines to put in CONV_FIT. Before fitting it checks that the
knob set to the committed values prices every case exactly as the committed
model does (the values read from sim_conv_price.c are the model's).

--write (with --fit) puts the fitted values into sim_conv_price.c's CONV_FIT, with
a comment saying which run they came from and how close they are; rebuild
MGPULAB and run the script again without --fit to see the committed table.

--skip REGEX leaves cases out of the count and the fit (e.g. a case measured
on a kernel the sim no longer prices). Exit status 0; 2 on bad input.
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONV_C = os.path.join(HERE, "engine", "dev", "sim", "sim_conv_price.c")
BENCH = os.path.join(HERE, "bench", "nn_bench.lua")
# the knob's names (sim_conv_price.c, conv_knob_names) and CONV_FIT's fields, in order
NAMES = ["gather_f32", "gather_bf16", "tap", "dgrad", "mac_f32", "mac_bf16", "mac_deep", "lone", "epi", "part",
         "halo_slice", "halo_mac", "halo_dgrad", "halo_wstep"]
FIELDS = {"mac_deep": "mac_deep_ns", "tap": "tap", "dgrad": "dgrad_a_ns", "lone": "lone_ns", "epi": "epi_ns",
          "part": "part_ns", "halo_slice": "halo_slice_ns", "halo_mac": "halo_mac_ns", "halo_dgrad": "halo_dgrad",
          "halo_wstep": "halo_wstep_ns"}
WITHIN = 15.0


def die(msg):
    print(f"fit-conv-sim: {msg}", file=sys.stderr)
    sys.exit(2)


def committed_coeffs():
    """CONV_FIT's values as sim_conv_price.c writes them."""
    src = open(CONV_C).read()
    m = re.search(r"static const conv_coeffs CONV_FIT = \{(.*?)\};", src, re.S)
    if not m:
        die(f"{CONV_C}: no CONV_FIT initializer")
    body = m.group(1)

    def pair(field):
        g = re.search(r"\." + field + r"\s*=\s*\{\s*([0-9.eE+-]+)\s*,\s*([0-9.eE+-]+)\s*\}", body)
        if not g:
            die(f"{CONV_C}: CONV_FIT has no .{field}")
        return float(g.group(1)), float(g.group(2))

    def one(field):
        g = re.search(r"\." + field + r"\s*=\s*([0-9.eE+-]+)", body)
        if not g:
            die(f"{CONV_C}: CONV_FIT has no .{field}")
        return float(g.group(1))

    c = dict(zip(("gather_f32", "gather_bf16"), pair("gather_ns")))
    c.update(zip(("mac_f32", "mac_bf16"), pair("mac_ns")))
    c.update({n: one(f) for n, f in FIELDS.items()})
    return c


def fit_lines(c):
    """CONV_FIT's initializer lines for the coefficients c."""
    lines = [f"    .gather_ns = {{{c['gather_f32']:.4g}, {c['gather_bf16']:.4g}}},",
             f"    .mac_ns = {{{c['mac_f32']:.4g}, {c['mac_bf16']:.4g}}},"]
    lines += [f"    .{f} = {c[n]:.4g}," for n, f in FIELDS.items()]
    return "\n".join(lines) + "\n"


def knob(c):
    return ",".join(f"{n}={c[n]:.6g}" for n in NAMES)


def sim_prices(mgpulab, machine, coeffs=None):
    """The binary's phantom prices of every conv case (ms), coeffs through the knob."""
    env = dict(os.environ, MGPULAB_LABS=os.path.join(HERE, "labs"), MGPULAB_CHECKS=os.path.join(HERE, "checks"))
    env.pop("MGPU_SIM_CONV_FIT", None)
    if coeffs is not None:
        env["MGPU_SIM_CONV_FIT"] = knob(coeffs)
    cmd = [mgpulab, "spmd", BENCH, "--backend", "sim", "--machine", machine, "--ranks", "1", "--", "phantom", "conv*"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if "MGPU_SIM_CONV_FIT" in out.stderr:
        die(f"the binary refused the knob: {out.stderr.strip()}")
    m = re.search(r"^\[rank 0\] result (\{.*\})$", out.stdout, re.M)
    if out.returncode != 0 or not m:
        die(f"{' '.join(cmd)}: no result row (exit {out.returncode})\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    return {c["name"]: c["ms"] for c in json.loads(m.group(1))["cases"]}


def errors(measured, sim, skip):
    """(name, measured ms, sim ms, error %) of the cases both have, not skipped."""
    rows = []
    for name, ms in measured.items():
        if name in sim and not (skip and re.search(skip, name)):
            rows.append((name, ms, sim[name], 100.0 * (sim[name] / ms - 1.0)))
    return rows


def table(rows, title):
    print(f"\n{title}\n")
    print("| case | measured ms | sim ms | error |")
    print("|---|---|---|---|")
    for name, ms, s, e in rows:
        flag = "" if abs(e) <= WITHIN else " **"
        print(f"| {name} | {ms:.4f} | {s:.4f} | {e:+.1f} %{flag} |")
    if not rows:
        print("(no case both measured and priced)")
        return
    errs = [abs(r[3]) for r in rows]
    worst = max(rows, key=lambda r: abs(r[3]))
    ok = sum(e <= WITHIN for e in errs)
    print(f"\nwithin {WITHIN:.0f} %: {ok} of {len(rows)}; median |error| {statistics.median(errs):.1f} %; "
          f"worst {worst[3]:+.1f} % ({worst[0]})")


def nelder_mead(f, x0, step=0.15, iters=400, tol=1e-7):
    """Minimise f over R^n from x0 (the log coefficients): the plain simplex."""
    n = len(x0)
    pts = [list(x0)] + [[x0[j] + (step if j == i else 0.0) for j in range(n)] for i in range(n)]
    vals = [f(p) for p in pts]
    for it in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        if vals[-1] - vals[0] < tol:
            break
        cen = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        refl = [cen[j] + (cen[j] - pts[-1][j]) for j in range(n)]
        fr = f(refl)
        if fr < vals[0]:
            exp = [cen[j] + 2 * (cen[j] - pts[-1][j]) for j in range(n)]
            fe = f(exp)
            pts[-1], vals[-1] = (exp, fe) if fe < fr else (refl, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = refl, fr
        else:
            con = [cen[j] + 0.5 * (pts[-1][j] - cen[j]) for j in range(n)]
            fc = f(con)
            if fc < vals[-1]:
                pts[-1], vals[-1] = con, fc
            else:
                for i in range(1, n + 1):
                    pts[i] = [pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]) for j in range(n)]
                    vals[i] = f(pts[i])
        print(f"  iteration {it + 1}: loss {vals[0]:.5f}", file=sys.stderr)
    best = min(range(n + 1), key=lambda i: vals[i])
    return pts[best], vals[best]


def main():
    args = sys.argv[1:]
    fit, write = "--fit" in args, "--write" in args
    args = [a for a in args if a not in ("--fit", "--write")]
    if write and not fit:
        die("--write needs --fit")
    skip, machine = None, None
    for flag in ("--skip", "--machine"):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                die(f"{flag} needs a value")
            if flag == "--skip":
                skip = args[i + 1]
            else:
                machine = args[i + 1]
            del args[i:i + 2]
    if len(args) != 2:
        die("usage: fit-conv-sim.py CONV_JSON MGPULAB [--fit] [--skip REGEX] [--machine PRESET]")
    path, mgpulab = args
    try:
        data = json.load(open(path))
        cases = data["cases"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        die(f"{path}: not a compare-nn-torch JSON ({e})")
    if not os.access(mgpulab, os.X_OK):
        die(f"{mgpulab}: not an executable")
    machine = machine or data.get("preset") or "dgx-h100"
    measured = {n: statistics.median(c["ours"]) for n, c in cases.items()
                if n.startswith("conv ") and isinstance(c, dict) and c.get("ours")}
    if not measured:
        die(f"{path}: no conv case with a measured time ('ours')")
    print(f"# {path}: {len(measured)} conv cases measured on {data.get('gpu', '?')}; the sim on {machine}")

    base = sim_prices(mgpulab, machine)
    missing = sorted(set(measured) - set(base))
    if missing:
        print(f"# not priced by this binary's bench (left out): {', '.join(missing)}")
    table(errors(measured, base, skip), "The committed model (sim_conv_price.c, CONV_FIT):")
    if not fit:
        return

    c0 = committed_coeffs()
    again = sim_prices(mgpulab, machine, c0)
    drift = [n for n in base if abs(again.get(n, -1) - base[n]) > 1e-9 * max(1.0, base[n])]
    if drift:
        die(f"the knob set to sim_conv_price.c's CONV_FIT ({knob(c0)}) prices {', '.join(drift[:4])} differently from "
            "the binary's committed model: rebuild MGPULAB from this tree")
    print(f"\n# the knob reproduces the committed prices ({knob(c0)}); fitting", file=sys.stderr)

    def loss(logc):
        c = {n: math.exp(v) for n, v in zip(NAMES, logc)}
        rows = errors(measured, sim_prices(mgpulab, machine, c), skip)
        return sum(math.log(s / ms) ** 2 for _, ms, s, _ in rows) / max(1, len(rows))

    best, _ = nelder_mead(loss, [math.log(c0[n]) for n in NAMES])
    c = {n: math.exp(v) for n, v in zip(NAMES, best)}
    rows = errors(measured, sim_prices(mgpulab, machine, c), skip)
    table(rows, f"Refitted ({knob(c)}):")
    if write:
        ok = sum(abs(r[3]) <= WITHIN for r in rows)
        src = open(CONV_C).read()
        start = src.index("/* scripts/fit-conv-sim.py --write:")
        end = src.index("};", src.index("static const conv_coeffs CONV_FIT = {")) + 2
        how = f" --skip '{skip}'" if skip else " every case"
        block = (f"/* scripts/fit-conv-sim.py --write: {path} ({data.get('gpu', '?')}),\n"
                 f" *{how}: {ok} of {len(rows)} within {WITHIN:.0f} % */\n"
                 "static const conv_coeffs CONV_FIT = {\n" + fit_lines(c) + "};")
        open(CONV_C, "w").write(src[:start] + block + src[end:])
        print(f"\n# wrote CONV_FIT into {CONV_C}: rebuild {mgpulab}, then run this script without --fit")
        return
    print("\nCONV_FIT in engine/dev/sim/sim_conv_price.c:\n")
    print(fit_lines(c), end="")
    print(f"\n(try it before committing: MGPU_SIM_CONV_FIT='{knob(c)}' {mgpulab} spmd ...)")


if __name__ == "__main__":
    main()
