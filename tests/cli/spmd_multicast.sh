#!/usr/bin/env bash
# spmd_multicast.sh - the sim's grouped sends and receives share a GPU's
# links, and comm:multicast (a broadcast through a CUDA multicast object):
# - a root sending one buffer to each of n-1 peers in one group takes about
#   n-1 times one send (its links carry every copy); n-1 peers sending to one
#   root likewise (its way in); a ring exchange (one send, one receive per
#   rank) is no slower than a single send;
# - comm:multicast gives every rank the root's values, runs at NVLS's store
#   rate on a DGX (slower than the ring broadcast at large sizes, far faster
#   than n-1 copies), and is refused with the reason on a PCIe machine, two
#   nodes, or with values that differ (data checked on every rank).
set -u
bin=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

cat >"$tmp/share.lua" <<'LUA'
local world, n, me = mgpu.comm(), mgpu.world, mgpu.rank
local s = world:stream()
local count = 64 * 1024 * 1024 // 4
local buf <close> = mgpu.phantom_tensor{count = count, dtype = "f32"}
local function timed(fn)
  local a, b = mgpu.event{timing = true}, mgpu.event{timing = true}
  fn(); a:record(s); fn(); b:record(s); b:synchronize()
  return a:elapsed(b) * 1000
end
local row = {}
row.one = timed(function() mgpu.group(function()
  if me == 0 then world:send(buf, 1, s) elseif me == 1 then world:recv(buf, 0, s) end end) end)
row.scatter = timed(function() mgpu.group(function()
  if me == 0 then for p = 1, n - 1 do world:send(buf, p, s) end else world:recv(buf, 0, s) end end) end)
row.gather = timed(function() mgpu.group(function()
  if me == 0 then for p = 1, n - 1 do world:recv(buf, p, s) end else world:send(buf, 0, s) end end) end)
row.ring = timed(function() mgpu.group(function()
  world:send(buf, (me + 1) % n, s); world:recv(buf, (me + n - 1) % n, s) end) end)
row.bcast = timed(function() world:broadcast(buf, buf, 0, s) end)
local ok, why = pcall(function() row.mcast = timed(function() world:multicast(buf, buf, 0, s) end) end)
if not ok then row.refused = tostring(why) end
-- values: the root's reach every rank
local x <close> = mgpu.tensor(1000)
if me == 0 then x:fill(7) else x:fill(-1) end
if ok then world:multicast(x, x, 0) ; mgpu.synchronize(); row.value = x:get(999) end
if me == 0 or me == n - 1 then mgpu.result(row) end
LUA

row() { # FILE RANK KEY -> the value
  python3 - "$1" "$2" "$3" <<'PY'
import json, re, sys
for line in open(sys.argv[1]):
    m = re.match(r"^\[rank (\d+)\] result (.*)$", line)
    if m and m.group(1) == sys.argv[2]:
        v = json.loads(m.group(2)).get(sys.argv[3])
        print(v if v is not None else "")
PY
}
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(a / b)" "$1" "$2"; }
between() { python3 -c "import sys; x, lo, hi = map(float, sys.argv[1:]); sys.exit(0 if lo <= x <= hi else 1)" "$@"; }

# dgx-h100, 8 ranks
"$bin" spmd "$tmp/share.lua" --backend sim --machine dgx-h100 --ranks 8 >"$tmp/dgx" 2>&1; rc=$?
[ $rc -eq 0 ] && ok || { bad "dgx-h100: rc=$rc"; cat "$tmp/dgx"; }
one=$(row "$tmp/dgx" 0 one); sc=$(row "$tmp/dgx" 0 scatter); ga=$(row "$tmp/dgx" 0 gather)
ri=$(row "$tmp/dgx" 0 ring); bc=$(row "$tmp/dgx" 0 bcast); mc=$(row "$tmp/dgx" 0 mcast)
if [ -n "$one" ] && [ -n "$sc" ] && [ -n "$ga" ] && [ -n "$ri" ] && [ -n "$bc" ] && [ -n "$mc" ]; then ok
else bad "dgx-h100: missing timings: one=$one scatter=$sc gather=$ga ring=$ri bcast=$bc mcast=$mc"; cat "$tmp/dgx"; fi
between "$(ratio "${sc:-0}" "${one:-1}")" 6.5 7.5 && ok || bad "root to 7 peers should take ~7 sends: $sc vs $one"
between "$(ratio "${ga:-0}" "${one:-1}")" 6.5 7.5 && ok || bad "7 peers into the root should take ~7 sends: $ga vs $one"
between "$(ratio "${ri:-0}" "${one:-1}")" 0.9 1.1 && ok || bad "a ring exchange should take one send's time: $ri vs $one"
# 64 MiB: multicast at NVLS's ~309 GB/s store rate, the ring broadcast ~370
between "$(python3 -c "print(64*1048576/(${mc:-1}*1000))")" 270 320 && ok || bad "multicast algbw not ~300 GB/s: $mc us"
between "$(ratio "${mc:-0}" "${bc:-1}")" 1.05 1.5 && ok || bad "multicast should trail the ring broadcast at 64 MiB: $mc vs $bc"
between "$(ratio "${sc:-0}" "${mc:-1}")" 4 7 && ok || bad "n-1 copies should be 4-7x the multicast: $sc vs $mc"
[ "$(row "$tmp/dgx" 7 value)" = "7.0" ] || [ "$(row "$tmp/dgx" 7 value)" = "7" ] && ok ||
  bad "rank 7 should hold the root's 7 after the multicast: $(row "$tmp/dgx" 7 value)"

# pcie-4gpu: refused with the reason; the grouped sends still share the slot
"$bin" spmd "$tmp/share.lua" --backend sim --machine pcie-4gpu --ranks 4 >"$tmp/pcie" 2>&1; rc=$?
[ $rc -eq 0 ] && ok || { bad "pcie-4gpu: rc=$rc"; cat "$tmp/pcie"; }
row "$tmp/pcie" 0 refused | grep -q "NVSwitch" && ok || { bad "pcie-4gpu: multicast not refused with the reason"; cat "$tmp/pcie"; }
# (GPU0's peers are not alike there: GPU1 shares its switch, GPU2-3 are on
# the other socket and slower, so "at least 3 sends", not "3 sends")
between "$(ratio "$(row "$tmp/pcie" 0 scatter)" "$(row "$tmp/pcie" 0 one)")" 2.6 6 && ok ||
  bad "pcie-4gpu: root to 3 peers should take at least ~3 sends"

# 2 x DGX, 16 ranks: a multicast object does not span nodes
"$bin" spmd "$tmp/share.lua" --backend sim --machine 2x-dgx-h100 --ranks 16 >"$tmp/two" 2>&1; rc=$?
[ $rc -eq 0 ] && ok || { bad "2x-dgx-h100: rc=$rc"; cat "$tmp/two"; }
row "$tmp/two" 0 refused | grep -q "span nodes" && ok || { bad "2x-dgx-h100: not refused across nodes"; cat "$tmp/two"; }

echo "spmd_multicast: $pass passed, $fail failed"
[ $fail -eq 0 ]
