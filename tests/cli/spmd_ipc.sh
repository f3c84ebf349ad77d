#!/usr/bin/env bash
# spmd_ipc.sh - lab 3's IPC and peer-access examples on the sim backend:
# ipc.lua on 2 and 3 ranks (the handle travels by mgpu.share, the opened
# memory holds rank 0's data, rank 1's write is seen by rank 0, the stale
# handle and the use after free are refused with the reason); peer.lua with
# peer access off and on (direct is faster; SM copies need peer access), on
# a one-GPU machine (says so) and with P2P disabled (says so).
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
ex=$src/examples/spmd
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
has() { grep -qE -- "$2" "$1"; }

# ipc.lua, 2 ranks
"$bin" spmd "$ex/ipc.lua" --backend sim --machine dgx-h100 --ranks 2 >"$tmp/ipc" 2>&1; rc=$?
[ $rc -eq 0 ] && ok || { bad "ipc.lua on 2 ranks: rc=$rc"; cat "$tmp/ipc"; }
has "$tmp/ipc" '^\[rank 0\] exported 1048576 floats on GPU 0 at 0x[0-9a-f]+ \(device memory, UVA\)$' && ok || bad "export line"
has "$tmp/ipc" "^\[rank 1\] opened rank 0's buffer: memory of GPU 0 mapped at 0x[0-9a-f]+; checksum matches$" && ok || bad "open line"
has "$tmp/ipc" "^\[rank 0\] rank 1's write through the handle is visible in rank 0's buffer$" && ok || bad "write-back line"
has "$tmp/ipc" '^\[rank 1\] opening the stale handle failed: .*this IPC handle is stale: rank 0 \(pid [0-9]+\) freed the exported buffer' && ok ||
  bad "stale handle not refused with the reason"
has "$tmp/ipc" '^\[rank 1\] reading after the exporter freed it: .*use after free through IPC: rank 0 \(pid [0-9]+\) freed' && ok ||
  bad "use after free not reported"
has "$tmp/ipc" '^\[rank 1\] result \{"checksum_ok":true,"stale_open":"refused","use_after_free":"refused","wrote_back":true\}$' && ok ||
  { bad "rank 1 result row"; cat "$tmp/ipc"; }
has "$tmp/ipc" '^\[rank 0\] result \{"checksum_ok":true,.*"wrote_back":true\}$' && ok || bad "rank 0 result row"

# ipc.lua, 3 ranks and a small size from the arguments: every importer agrees
"$bin" spmd "$ex/ipc.lua" --backend sim --ranks 3 -- 1000 >"$tmp/ipc3" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '"stale_open":"refused"' "$tmp/ipc3")" -eq 2 ] && has "$tmp/ipc3" 'exported 1000 floats' && ok ||
  { bad "ipc.lua on 3 ranks: rc=$rc"; cat "$tmp/ipc3"; }

# ipc.lua refuses one rank with the reason
"$bin" spmd "$ex/ipc.lua" --backend sim --ranks 1 >"$tmp/ipc1" 2>&1; rc=$?
[ $rc -ne 0 ] && has "$tmp/ipc1" 'run with --ranks 2 or more' && ok || { bad "ipc.lua on 1 rank: rc=$rc"; cat "$tmp/ipc1"; }

# peer.lua on an NVLink machine: direct beats staged, SM copies need peer access
"$bin" spmd "$ex/peer.lua" --backend sim --machine dgx-h100 --ranks 1 >"$tmp/peer" 2>&1; rc=$?
[ $rc -eq 0 ] && ok || { bad "peer.lua: rc=$rc"; cat "$tmp/peer"; }
has "$tmp/peer" '^\[rank 0\] GPU 0 -> GPU 1, 64 MiB: cudaDeviceCanAccessPeer = true$' && ok || bad "peer header"
has "$tmp/peer" '^\[rank 0\] peer access off: copy engine [0-9.]+ GB/s \(staged through host memory\)$' && ok || bad "off line"
has "$tmp/peer" '^\[rank 0\] peer access off: an SM copy kernel is refused: .*peer access from GPU 0 to GPU 1 is not enabled' && ok || bad "SM refusal"
has "$tmp/peer" '^\[rank 0\] peer access on:  copy engine [0-9.]+ GB/s, SM copy [0-9.]+ GB/s \(direct\)' && ok || bad "on line"
if python3 - "$tmp/peer" <<'PY'
import json, re, sys
row = json.loads(re.search(r'^\[rank 0\] result (\{.*\})$', open(sys.argv[1]).read(), re.M).group(1))
assert row["can_access"] is True and row["sm_refused_when_off"] is True, row
assert row["on_gbs"] > 5 * row["off_gbs"], row   # NVLink direct vs staged through the host
PY
then ok; else bad "peer.lua numbers"; cat "$tmp/peer"; fi

# one GPU: says so, still succeeds
"$bin" spmd "$ex/peer.lua" --backend sim --machine single-gpu --ranks 1 >"$tmp/one" 2>&1; rc=$?
[ $rc -eq 0 ] && has "$tmp/one" 'this machine has one GPU: a peer copy needs two' && has "$tmp/one" '"skipped":true' && ok ||
  { bad "peer.lua on one GPU: rc=$rc"; cat "$tmp/one"; }

# P2P disabled: peer access cannot be enabled, the copy stays staged
"$bin" spmd "$ex/peer.lua" --backend sim --machine dgx-h100 --fault p2p-disabled --ranks 1 >"$tmp/nop2p" 2>&1; rc=$?
[ $rc -eq 0 ] && has "$tmp/nop2p" 'cudaDeviceCanAccessPeer = false' && has "$tmp/nop2p" 'peer access cannot be enabled between these GPUs' &&
  has "$tmp/nop2p" '"can_access":false' && ok || { bad "peer.lua with p2p-disabled: rc=$rc"; cat "$tmp/nop2p"; }

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
