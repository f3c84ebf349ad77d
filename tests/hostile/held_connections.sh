#!/usr/bin/env bash
# held_connections.sh - strangers on the coordinator's TCP port must not
# keep the ranks out (issue 16 item 4). A client holds 200 connections open
# (saying nothing, or the start of a frame) from the moment the port
# listens, and opens a new one for each that the coordinator closes. The
# coordinator turned the newcomers away once its table of connections
# waiting to say hello was full, so ranks that came after the strangers
# were refused: a 32-rank run failed ("rank 15 exited with status 1 before
# connecting"). The run must finish as if no stranger were there.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
cat >flood.py <<'PY'
import select, socket, struct, sys, time
port, n, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
hexport = ":%04X" % port
def listening():
    with open("/proc/net/tcp") as f:
        return any(l.split()[1].endswith(hexport) and l.split()[3] == "0A" for l in f.readlines()[1:])
print("ready", flush=True)
while not listening(): time.sleep(0.002)   # the event: the coordinator listens
held, made = [], 0
def one():
    global made
    s = socket.socket()
    s.setblocking(False)
    try: s.connect(("127.0.0.1", port))
    except BlockingIOError: pass
    except OSError: s.close(); return
    made += 1
    held.append(s)
    if mode == "partial":                     # a frame announced, never finished
        try: s.send(struct.pack(">I", 16000) + b"{" * 8000)
        except OSError: pass
while True:
    while len(held) < n: one()
    r, _, _ = select.select(held, [], [], 0.05)
    for s in r:
        try: gone = s.recv(4096) == b""
        except OSError: gone = True
        if gone: held.remove(s); s.close()
PY
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
echo 'mgpu.comm():barrier() if mgpu.rank == 0 then print("all ranks in") end' >in.lua
for mode in silent partial; do
  port=$(free_port)
  python3 -u flood.py "$port" 200 $mode >flood.$mode 2>&1 &
  flood=$!
  until grep -q ready flood.$mode || ! kill -0 $flood 2>/dev/null; do sleep 0.05; done
  MGPU_RT_TRANSPORT=tcp MGPU_COORD_HOST=127.0.0.1 MGPU_COORD_PORT=$port \
    hrun out.$mode spmd in.lua --backend sim --ranks 32
  kill $flood 2>/dev/null; wait $flood 2>/dev/null
  if [ $rc -eq 0 ] && has out.$mode "all ranks in" && has out.$mode "every rank finished"; then ok
  else bad "32 ranks with 200 $mode strangers on the port: exit $rc"; grep -v '^\[rank' out.$mode | tail -5; fi
done
finish
