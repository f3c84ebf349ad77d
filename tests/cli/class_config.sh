#!/usr/bin/env bash
# class_config.sh - a class configuration (MGPULAB_CLASS or
# $XDG_CONFIG_HOME/mgpulab/class.json) pins the backend, machine and the
# workshop's labs in order; every command and the shell say it is in force;
# the command line may override and is told so; a wrong file is refused with
# its name and the problem; the learner's exercise files go with an export
# unless the configuration says "export_solutions": false.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d /tmp/mgpu-class-cli.XXXXXX)
sock="mgpu-class-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state MGPULAB_LABS=$src/labs XDG_CONFIG_HOME=$tmp/config
unset MGPULAB_CLASS
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

cat >"$tmp/class.json" <<'J'
{"name": "Test workshop", "backend": "sim", "machine": "pcie-4gpu",
 "labs": ["01-topology", "0"], "options": {"timeout": 60}}
J
export MGPULAB_CLASS=$tmp/class.json
"$bin" list >"$tmp/out" 2>"$tmp/err"; rc=$?
check "list exits 0 (rc=$rc: $(head -3 "$tmp/err"))" '[ $rc -eq 0 ]'
check "list says the class is in force" 'grep -q "^# class configuration .Test workshop. in force ($tmp/class.json): sim pcie-4gpu; 2 labs" "$tmp/err"'
check "only the workshop's labs, in its order" '[ "$(grep -E "^ *[0-9]+ " "$tmp/out" | awk "{print \$1}" | tr "\n" " ")" = "1 0 " ]'
"$bin" topo >"$tmp/out" 2>"$tmp/err"; rc=$?
check "topo runs on the pinned machine" '[ $rc -eq 0 ] && grep -q "^# SIMULATED machine pcie-4gpu" "$tmp/out"'
"$bin" topo --machine single-gpu >"$tmp/out" 2>"$tmp/err"
check "an explicit option wins and is told so" 'grep -q "SIMULATED machine single-gpu" "$tmp/out" && grep -q "overrides the class configuration.s --machine" "$tmp/err"'
"$bin" run 2 --json >/dev/null 2>"$tmp/err"; rc=$?
check "a lab outside the workshop is not there" '[ $rc -eq 2 ] && grep -q "no lab .2." "$tmp/err"'

# The export carries the learner's exercise files (the instructor's --verify
# re-runs them) unless the configuration says "export_solutions": false.
"$bin" run 0 --json >/dev/null 2>&1
"$bin" report --export "$tmp/a.json" --name A >/dev/null 2>&1
check "export carries the learner's exercise file by default" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
ex = [s[\"exercise\"] for l in d[\"labs\"] for s in l[\"steps\"] if \"exercise\" in s]
assert ex and all(e[\"file\"] and isinstance(e[\"text\"], str) and e[\"text\"] for e in ex), ex
assert d[\"work\"] is True
" "$tmp/a.json"'
python3 - "$tmp/class.json" <<'PY'
import json, sys; d = json.load(open(sys.argv[1])); d["export_solutions"] = False; json.dump(d, open(sys.argv[1], "w"))
PY
"$bin" report --export "$tmp/b.json" --name B >/dev/null 2>&1
check "export_solutions false: no exercise file in the export" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"work\"] is False and not [s for l in d[\"labs\"] for s in l[\"steps\"] if \"exercise\" in s]
" "$tmp/b.json"'
python3 - "$tmp/class.json" <<'PY'
import json, sys; d = json.load(open(sys.argv[1])); del d["export_solutions"]; json.dump(d, open(sys.argv[1], "w"))
PY

# Found under XDG_CONFIG_HOME without the variable.
unset MGPULAB_CLASS
mkdir -p "$tmp/config/mgpulab"
cp "$tmp/class.json" "$tmp/config/mgpulab/class.json"
"$bin" list >/dev/null 2>"$tmp/err"
check "found in \$XDG_CONFIG_HOME/mgpulab/class.json" 'grep -q "class configuration .Test workshop. in force ($tmp/config/mgpulab/class.json)" "$tmp/err"'

# The shell shows it in its top bar.
tmux -L "$sock" new-session -d -s main -x 120 -y 40 "exec env NO_COLOR=1 TERM=tmux-256color XDG_STATE_HOME=$XDG_STATE_HOME XDG_CONFIG_HOME=$XDG_CONFIG_HOME MGPULAB_LABS=$MGPULAB_LABS $bin"
for i in $(seq 1 300); do tmux -L "$sock" capture-pane -p -t main >"$tmp/screen" 2>/dev/null; grep -q "Topology" "$tmp/screen" && break; sleep 0.1; done
check "the shell's top bar names the class" 'head -1 "$tmp/screen" | grep -q "\[class: Test workshop\]"'
tmux -L "$sock" send-keys -t main q
rm -rf "$tmp/config/mgpulab"

# Wrong files: exit 2, the file and the problem named; nothing runs.
export MGPULAB_CLASS=$tmp/bad.json
echo '{"name": "x", "machnie": "dgx-h100"}' >"$tmp/bad.json"
"$bin" list >/dev/null 2>"$tmp/err"; rc=$?
check "a misspelt member is refused" '[ $rc -eq 2 ] && grep -q "class configuration $tmp/bad.json: unknown member \"machnie\"" "$tmp/err"'
echo '{"name": "x", ' >"$tmp/bad.json"
"$bin" topo >/dev/null 2>"$tmp/err"; rc=$?
check "broken JSON is refused with where" '[ $rc -eq 2 ] && grep -q "bad.json: line" "$tmp/err"'
echo '{"backend": "gpu"}' >"$tmp/bad.json"
"$bin" list >/dev/null 2>"$tmp/err"; rc=$?
check "a wrong backend is refused" '[ $rc -eq 2 ] && grep -q "auto, cuda or sim" "$tmp/err"'
echo '{"labs": ["99-nope"]}' >"$tmp/bad.json"
"$bin" list >/dev/null 2>"$tmp/err"; rc=$?
check "a lab that does not exist is named" '[ $rc -ne 0 ] && grep -q "names lab .99-nope." "$tmp/err"'
echo '{"pacing": {"labs_opened_by_instructor": true}}' >"$tmp/bad.json"
"$bin" list >/dev/null 2>"$tmp/err"; rc=$?
check "closed labs without a shared folder are refused" '[ $rc -eq 2 ] && grep -q "needs a \"share\"" "$tmp/err"'
echo '{"stuck_minutes": 0}' >"$tmp/bad.json"
"$bin" list >/dev/null 2>"$tmp/err"; rc=$?
check "stuck_minutes 0 is refused" '[ $rc -eq 2 ] && grep -q "\"stuck_minutes\" must be a number of minutes" "$tmp/err"'
echo '{"pacing": {"steps_in_ordre": true}}' >"$tmp/bad.json"
"$bin" list >/dev/null 2>"$tmp/err"; rc=$?
check "a misspelt pacing member is refused" '[ $rc -eq 2 ] && grep -q "pacing \"steps_in_ordre\" is unknown" "$tmp/err"'
# A relative share is beside the configuration file; every step's export lands there.
mkdir -p "$tmp/cfgdir/collect"
echo '{"name": "S", "backend": "sim", "labs": ["0"], "share": "collect"}' >"$tmp/cfgdir/class.json"
MGPULAB_CLASS=$tmp/cfgdir/class.json USER=sharer "$bin" run 0 --step 1 >"$tmp/out" 2>&1
check "a relative share is beside the configuration file and gets the export after a step ($(tail -1 "$tmp/out"))" 'ls "$tmp/cfgdir/collect/"*@*.json >/dev/null 2>&1'
export MGPULAB_CLASS=$tmp/missing.json
"$bin" list >/dev/null 2>"$tmp/err"; rc=$?
check "a named file that is missing is refused" '[ $rc -eq 2 ] && grep -q "missing.json" "$tmp/err"'

echo "class_config: $pass passed, $fail failed"
[ $fail -eq 0 ]
