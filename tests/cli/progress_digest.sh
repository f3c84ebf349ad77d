#!/usr/bin/env bash
# progress_digest.sh - a hand-edited progress.json that marks every step
# passed neither passes in `list` (it printed "4/2 passed": the reading
# steps counted) nor exports as passed: the keyed digest every save writes
# does not match, the command warns once per load, the claimed steps count
# as not done and the export marks them "edited", until each runs again.
# Re-formatting the file without changing it is not an edit; removing the
# digest is.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d /tmp/mgpu-digest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state MGPULAB_LABS=$src/labs XDG_CONFIG_HOME=$tmp/config
unset MGPULAB_CLASS MGPULAB_CHECKS
prog=$XDG_STATE_HOME/mgpulab/progress.json
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

"$bin" run 0 --step 1 --backend sim >/dev/null 2>&1
check "a save writes a keyed digest" 'jq -e ".digest | startswith(\"hmac-sha256:\")" "$prog" >/dev/null'
python3 - "$prog" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump(d, open(sys.argv[1], "w"), indent=4)   # the same document, written otherwise
PY
"$bin" list >"$tmp/out" 2>"$tmp/err"
check "re-formatting the file is not an edit" '! grep -q "changed outside mgpulab" "$tmp/err" && grep -qE "^ *0 +Welcome +0/2 passed, 1/2 read" "$tmp/out"'

# The forgery: every step of lab 0 passed.
python3 - "$prog" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in ["shell", "backends", "hello", "progress"]:
    d["labs"].setdefault("00-welcome", {"steps": {}})["steps"][s] = {"state": "passed", "attempts": 1}
json.dump(d, open(sys.argv[1], "w"))
PY
"$bin" list >"$tmp/out" 2>"$tmp/err"
check "list does not count the forged passes (not 4/2 passed)" 'grep -qE "^ *0 +Welcome +0/2 passed, 0/2 read" "$tmp/out"'
check "list says the file was changed outside mgpulab" 'grep -q "progress file .* was changed outside mgpulab (its digest does not match); the 4 steps it says you did count again once you run them again" "$tmp/err"'
"$bin" report --export "$tmp/x.json" --name Mallory >/dev/null 2>&1
check "the export marks the claims as edited" 'python3 - "$tmp/x.json" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
assert d["progress_digest"] == "edited", d["progress_digest"]
s = d["labs"][0]["steps"]
assert all(x["state"] == "passed" and x.get("edited") is True for x in s), [(x["state"], x.get("edited")) for x in s]
PY'
"$bin" report >"$tmp/md" 2>&1
check "the learner's own report does not show them passed either" '! grep -qE "^\| 2 Backends.*\| passed \|" "$tmp/md"'

# Running a step again replaces its claim, and only its.
"$bin" run 0 --step 2 --backend sim --answer backend=sim --answer gpus=8 --answer emulated=no >/dev/null 2>&1
"$bin" list >"$tmp/out" 2>"$tmp/err"
check "a step run again counts (1/2 passed), no warning now the file is ours again" 'grep -qE "^ *0 +Welcome +1/2 passed, 0/2 read" "$tmp/out" && ! grep -q "changed outside" "$tmp/err"'
check "its attempts start afresh, the other claims stay marked" 'python3 - "$prog" <<PY
import json, sys
s = json.load(open(sys.argv[1]))["labs"]["00-welcome"]["steps"]
assert s["backends"]["attempts"] == 1 and "untrusted" not in s["backends"], s["backends"]
assert all(s[k].get("untrusted") is True for k in ("shell", "hello", "progress")), s
PY'

# Removing the digest is an edit too.
python3 - "$prog" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["digest"]
json.dump(d, open(sys.argv[1], "w"))
PY
"$bin" list >"$tmp/out" 2>"$tmp/err"
check "a file without its digest is not trusted" 'grep -q "changed outside mgpulab" "$tmp/err" && grep -qE "^ *0 +Welcome +0/2 passed" "$tmp/out"'

echo "progress_digest: $pass passed, $fail failed"
[ $fail -eq 0 ]
