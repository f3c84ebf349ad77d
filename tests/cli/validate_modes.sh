#!/usr/bin/env bash
# validate_modes.sh - `mgpulab validate --sweep` (every collective from 8 B
# up, nccl-tests' columns with #wrong, each size next to the model; capped
# on the sim, which says so) and `--sustained` (windows of HBM copies, PCIe
# both ways and all_reduce: drift and wrong results over time; a fractional
# duration, device time - the model's clock on the sim).
source "$(dirname "$0")/validate_lib.bash" "$1"

run --machine pcie-4gpu --sweep --sustained 3s; rc=$?
check "sweep + sustained on a healthy machine exit 0 (rc=$rc; $(head -c 300 "$tmp/err.txt"))" '[ $rc -eq 0 ]'
check "sweep: every collective, 8 B up to the cap, #wrong 0" 'python3 - "$tmp/v.json" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["sweep"]
colls = {r["coll"] for r in rows}
assert colls == {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"}, colls
ar = [r for r in rows if r["coll"] == "all_reduce" and not r["in_place"]]
assert ar[0]["size"] == 8 and ar[-1]["size"] == 4 << 20, (ar[0]["size"], ar[-1]["size"])
assert all(r["wrong"] in (0, None) for r in rows)
assert all(r["model_us"] > 0 for r in rows), [r for r in rows if not r["model_us"] > 0][:1]
assert "capped at 4 MiB" in rows[0]["note"], rows[0]
sw = [c for c in d["checks"] if c["section"] == "sweep"]
assert len(sw) == 7 and all(c["status"] == "ok" for c in sw), sw
PY'
check "sustained: 10 windows per rank over 3 s, no wrong result, no drift" 'python3 - "$tmp/v.json" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sustained"]
assert s["duration_s"] == 3 and len(s["ranks"]) == 4, s.keys()
for r in s["ranks"]:
    w = r["windows"]
    assert len(w) == 10 and r["wrong"] == 0, r
    assert 2.9 <= w[-1]["t_s"] <= 3.6, w[-1]
    assert all(x["hbm_gbs"] > 0 and x["h2d_gbs"] > 0 and x["d2h_gbs"] > 0 and x["busbw_gbs"] > 0 for x in w)
ld = {c["check"]: c for c in d["checks"] if c["section"] == "load"}
assert ld["all_reduce results over 3 s"]["measured"] == "0 wrong", ld
assert all(c["status"] == "ok" for c in ld.values()) and len(ld) == 5, ld
PY'
# the text shows the sweep as nccl-tests does, with the model's columns
"$bin" validate --backend sim --machine single-gpu --quick --sweep >"$tmp/s.txt" 2>&1; rc=$?
check "sweep text (rc=$rc)" '[ $rc -eq 0 ] && grep -q "^# sweep all_reduce (nccl-tests columns" "$tmp/s.txt" &&
  grep -qE "^ +8 +2 +float +sum +-1 " "$tmp/s.txt" && grep -q "#wrong" "$tmp/s.txt" &&
  grep -q "^# sim: sizes capped at 4 MiB" "$tmp/s.txt"'
# a straggler shows in the sweep and the load under its one finding
run --machine pcie-4gpu --fault straggler:2 --sustained 0.01m; rc=$?
check "straggler under --sustained exits 1 (rc=$rc)" '[ $rc -eq 1 ]'
check "straggler:2 under --sustained: still one finding" 'finding "^rank 2 is a straggler"'

echo "validate_modes: $pass passed, $fail failed"
[ $fail -eq 0 ]
