#!/usr/bin/env python3
"""conv_compare.py - joins conv_harness's and conv_torch.py's lines (files
given) into one table: ours ms, torch ms, torch/ours; '*' below 0.8x."""
import re
import sys

ours, torch, extra = {}, {}, {}
for f in sys.argv[1:]:
    for line in open(f):
        m = re.match(r"case (.*?) ms ([\d.]+)(.*)", line)
        if m:
            ours.setdefault(m.group(1), float(m.group(2)))
            extra[m.group(1)] = m.group(3).strip()
        m = re.match(r"torch (.*?) ms ([\d.]+)", line)
        if m:
            torch[m.group(1)] = float(m.group(2))
for name, ms in ours.items():
    t = torch.get(name)
    ratio = f"{t / ms:5.2f}{' *' if t / ms < 0.8 else ''}" if t else "-"
    print(f"{name:42s} ours {ms:8.4f} torch {t if t else 0:8.4f} {ratio:8s} {extra[name]}")
