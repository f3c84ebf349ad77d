# validate_lib.bash - what the validate fault tests share (sourced, not a
# test itself): the scratch directory, check counting, `run` (validate on
# the sim, JSON report into $tmp/v.json) and `anomaly SECTION PREFIX` (an
# ANOMALY row whose check starts so, explained with a cause and a next check;
# prints it).
set -u
bin=$1
tmp=$(mktemp -d /tmp/mgpu-validate-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

anomaly() { python3 - "$tmp/v.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hits = [c for c in d["checks"] if c["status"] == "ANOMALY" and c["section"] == sys.argv[2]
        and c["check"].startswith(sys.argv[3])]
for c in hits:
    assert c.get("cause") and c.get("next"), c   # explained, with what to check next
    print(c["check"], "|", c["measured"], "|", c["expected"], "|", c["cause"])
sys.exit(0 if hits else 1)
PY
}
run() { "$bin" validate --backend sim --quick --json "$@" >"$tmp/v.json" 2>"$tmp/err.txt"; }
# finding PATTERN: the report's first finding matches PATTERN and explains
# every anomaly (the root cause first, nothing left over); prints it.
finding() { python3 - "$tmp/v.json" "$1" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
assert f, "no finding"
print(f[0]["cause"], "|", f[0]["explains"], "of", d["anomalies"], "anomalies")
assert re.search(sys.argv[2], f[0]["cause"]), f[0]
assert f[0]["explains"] == d["anomalies"] + d["errors"] and len(f) == 1, f
assert all(c.get("finding") == 1 for c in d["checks"] if c["status"] == "ANOMALY")
PY
}
