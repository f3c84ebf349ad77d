#!/usr/bin/env bash
# class_report_input.sh - `mgpulab report --class` over a folder a class
# shares, where anyone can drop a file (issue 34): a 40k-step export took
# 54 s (every step searched every column) and a 30 MB one 593 MB; attempts
# summed past 2^31 overflowed; a learner's name with ESC/BEL/CR reached the
# terminal raw and =HYPERLINK(...) landed in the CSV as a formula; a
# symlinked *.json leaked the first token of what it pointed at; a class
# configuration's name with an escape sequence was printed raw. Nothing here
# measures time: the 40k steps must finish under a hang guard.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
export MGPULAB_LABS=$src/labs TZ=UTC XDG_CONFIG_HOME=$tmp/config
unset MGPULAB_CHECKS MGPULAB_CLASS
mkdir -p class
# make_export FILE ID NAME [python edits of d]: an export of labs 0-1 (the
# sample class's ada.json) under another learner
make_export() {
  python3 - "$src/tests/data/class/ada.json" "$1" "$2" "$3" "${4:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["learner"] = {"id": sys.argv[3], "name": sys.argv[4]}
exec(sys.argv[5])
json.dump(d, open(sys.argv[2], "w"))
PY
}
raw_controls() { LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1"; }

# names that would act on a terminal, or in a spreadsheet
make_export class/eve.json eve $'Eve\e]0;pwned\a\e[2J\rX\xc2\x9b31m'
make_export class/mal.json mal '=HYPERLINK("http://evil.example/","click")'
for f in markdown text csv; do
  hrun out report --class class --format $f
  [ $rc -eq 0 ] && ! raw_controls out && has out 'Eve\\x1b\]0;pwned\\x07\\x1b\[2J( |\\x0d)X\\u009b31m' && ok ||
    { bad "--format $f: a name's control characters (exit $rc)"; cat -v out | head -20; }
done
hrun out report --class class --format csv
[ $rc -eq 0 ] && has out "^\"mal\",\"'=HYPERLINK\(\"\"http" && ! has out ',"=HYPERLINK' && ok ||
  { bad "CSV: a formula in a name (exit $rc)"; head -5 out; }

# attempts past a learner's (2^31 - 1 and 1 summed overflowed): not a count
make_export class/huge.json huge 'Huge' 'd["labs"][0]["steps"][1]["attempts"] = 2**31 - 1'
make_export class/huge2.json huge2 'Huge Two' 'd["labs"][0]["steps"][1]["attempts"] = 2**40'
hrun out report --class class --format json
[ $rc -eq 0 ] && python3 - out <<'PY' && ok || { bad "attempts of 2^31 - 1 and 2^40 (exit $rc)"; cat out | head -40; }
import json, sys
r = json.load(open(sys.argv[1]))
probs = [p["what"] for p in r["problems"]]
assert any("attempts 2147483647" in p and "each must be a count (0 to 1000000)" in p for p in probs), probs
assert any("attempts 1099511627776" in p for p in probs), probs
for s in r["steps"]:
    assert 0 <= s["attempts"] < 100, s
PY
rm -f class/huge*.json class/eve.json class/mal.json

# a symlinked export and a FIFO: refused with what they are, the target's
# contents never shown, and the rest of the class read
printf 'SECRET-TOKEN-4711 {"format"' >secret.txt
ln -s "$tmp/secret.txt" class/link.json
mkfifo class/pipe.json
make_export class/ada.json ada 'Ada Lovelace'
hrun out report --class class --format text
[ $rc -eq 0 ] && has out "link.json: not read: it is a symbolic link; only a regular file is read" &&
  has out "pipe.json: not read: it is a FIFO \(named pipe\); only a regular file is read" &&
  ! has out SECRET && has out "Ada Lovelace" && ok || { bad "a symlink and a FIFO in the class folder (exit $rc)"; cat out; }
rm -f class/link.json class/pipe.json

# an export over the cap: skipped, named, with the cap; the others read
make_export class/big.json big 'Big' 'd["padding"] = "x" * (9 << 20)'
hrun out report --class class --format text
[ $rc -eq 0 ] && has out "big.json: not read: it is [0-9]+ bytes, over the limit of 8 MiB" &&
  has out "Ada Lovelace" && ok || { bad "a 9 MB export (exit $rc)"; head -c 2000 out; }
rm -f class/big.json

# 40,000 steps in one lab and one export: every step a column, each found
# by its id (a hang guard only: hrun's SIGKILL after 120 s)
mkdir -p labs/01-big big
cat >labs/01-big/lab.lua <<'EOF'
local s = {}
for i = 1, 40000 do s[i] = { id = "s" .. i, title = "Step " .. i, run = function() return {} end } end
return { title = "Big", steps = s }
EOF
python3 - "$src/tests/data/class/ada.json" big/learner.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["labs"] = [{"id": "01-big", "title": "Big", "steps": [
    {"id": "s%d" % (i + 1), "state": "read", "attempts": 1, "ran_on": "sim dgx-h100"} for i in range(40000)]}]
json.dump(d, open(sys.argv[2], "w"))
PY
MGPULAB_LABS=$tmp/labs MGPULAB_CHECKS=$src/checks hrun out report --class big --format csv
[ $rc -eq 0 ] && [ "$(grep -c '^"ada","Ada Lovelace","01-big","s[0-9]*",.*,read,1,' out)" -eq 40000 ] && ok ||
  { bad "a 40k-step export (exit $rc)"; head -5 out; }

# a class configuration whose name (or a roster name) carries an escape
# sequence is refused, never printed raw
mkdir -p config/mgpulab
printf '{"name": "Evil\\u001b[2J class", "backend": "sim"}' >config/mgpulab/class.json
hrun out report --class class --format text
! raw_controls out && has out '"name" holds a control character' && ok ||
  { bad "a class name with ESC (exit $rc)"; cat -v out; }
printf '{"name": "Class", "roster": [{"id": "eve", "name": "Eve\\u0007"}]}' >config/mgpulab/class.json
hrun out report --class class --format text
! raw_controls out && has out '"roster" entry 1 must be an id .*no control characters' && ok ||
  { bad "a roster name with BEL (exit $rc)"; cat -v out; }
finish
