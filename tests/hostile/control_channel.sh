#!/usr/bin/env bash
# control_channel.sh - the coordinator's control channel under abuse
# (issue 16 items 3, 4, 11): more ranks than its old cap of 64 connections
# waiting to say hello (80 ranks failed 3/3 with the local launcher), and a
# stranger on the socket that announces a 16 MiB frame before any hello
# (the coordinator buffered it all; 64 such raised it to 1 GB).
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
echo 'if mgpu.rank == 0 then print("rank zero ran") end' >many.lua
hrun out spmd many.lua --backend sim --ranks 100 --timeout 120
[ $rc -eq 0 ] && has out "every rank finished" && ok || { bad "100 ranks: exit $rc"; tail -5 out; }

# a stranger on the unix socket (the same user can reach it): the run's
# coordinator must drop it after a small frame header, not buffer 8 MiB
mkdir -p "$tmp/t"
echo 'while true do end' >spin.lua
TMPDIR=$tmp/t timeout -s KILL 120 "$bin" spmd spin.lua --backend sim --ranks 2 --time-limit 100 >spin.out 2>&1 &
spmd=$!
python3 - "$tmp/t" <<'PY' && ok || bad "a stranger's 16 MiB frame was buffered (8 MiB sent before any hello)"
import glob, os, socket, struct, sys, time
d = sys.argv[1]
path = None
while path is None:                      # the event: the coordinator's socket appears
    hits = glob.glob(os.path.join(d, "mgpulab-*", "coord.sock"))
    path = hits[0] if hits else None
    if path is None: time.sleep(0.05)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
while True:
    try: s.connect(path); break
    except (FileNotFoundError, ConnectionRefusedError): time.sleep(0.05)
s.settimeout(60)
try:
    s.sendall(struct.pack(">I", 16 << 20) + b"x" * (8 << 20))
except (BrokenPipeError, ConnectionResetError):
    sys.exit(0)                           # dropped early: good
except socket.timeout:
    sys.exit(1)
sys.exit(1)                               # it took all 8 MiB
PY
kill $spmd 2>/dev/null; wait $spmd 2>/dev/null
finish
