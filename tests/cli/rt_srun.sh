#!/usr/bin/env bash
# rt_srun.sh - `--launcher srun` end to end: starts a private single-node
# Slurm (munge, slurmctld, slurmd from Debian's slurm-wlm) when it can, and
# runs `mgpulab bench all_reduce` on 2 ranks through srun. Where Slurm cannot
# start here, it says so and tests srun through its environment variables
# with a stand-in srun that sets SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID.
set -u
MGPULAB=${1:?usage: rt_srun.sh /path/to/mgpulab}
fail() { echo "FAIL: $*"; exit 1; }
dir=$(mktemp -d /tmp/mgpulab-slurm-XXXXXX)
started_munged=""
cleanup() {
  for f in "$dir"/slurmd.pid "$dir"/slurmctld.pid; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  [ -n "$started_munged" ] && kill "$started_munged" 2>/dev/null
  sleep 0.3
  rm -rf "$dir"
}
trap cleanup EXIT

# Start Slurm; on failure say why (in $why) and return 1. Not in a
# subshell: SLURM_CONF and the munged pid must stay in this shell.
why=""
start_slurm() {
  [ -z "${MGPU_TEST_NO_SLURM:-}" ] || { why="MGPU_TEST_NO_SLURM is set"; return 1; }
  [ "$(id -u)" = 0 ] || { why="not root (slurmd must run as root)"; return 1; }
  for c in munged munge slurmctld slurmd sinfo srun; do
    command -v $c >/dev/null 2>&1 || { why="$c is not installed (apt-get install slurm-wlm munge)"; return 1; }
  done
  [ -r /etc/munge/munge.key ] || { why="no /etc/munge/munge.key"; return 1; }
  if ! munge -n >/dev/null 2>&1; then
    mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null
    su -s /bin/sh munge -c "munged --force" >/dev/null 2>&1 || munged --force >/dev/null 2>&1
    started_munged=$(cat /run/munge/munged.pid 2>/dev/null)
    munge -n >/dev/null 2>&1 || { why="munged does not start"; return 1; }
  fi
  local host port=$((20000 + RANDOM % 20000))
  host=$(hostname)
  mkdir -p "$dir/state" "$dir/spool"
  cat > "$dir/slurm.conf" <<CONF
ClusterName=mgpulabtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=mgpulab Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF" >/dev/null 2>&1 || { why="slurmctld does not start"; return 1; }
  slurmd -f "$SLURM_CONF" >/dev/null 2>&1 || { why="slurmd does not start: $(tail -n 2 "$dir/slurmd.log" 2>/dev/null)"; return 1; }
  for _ in $(seq 50); do
    [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && return 0
    sleep 0.2
  done
  why="the node never became idle: $(tail -n 2 "$dir/slurmctld.log" 2>/dev/null)"
  return 1
}

export MGPU_COORD_HOST=127.0.0.1
if start_slurm; then
  echo "# real single-node Slurm started ($(srun --version 2>/dev/null))"
  mode=slurm
else
  echo "# Slurm could not start here: $why"
  echo "# testing srun through its environment variables with a stand-in srun"
  cat > "$dir/srun" <<'FAKE'
#!/usr/bin/env bash
# A stand-in for srun: -n N, other options skipped, then N copies of the
# program with Slurm's per-task variables, as srun sets them on one node.
n=1
while [ $# -gt 0 ]; do
  case "$1" in
    -n) n=$2; shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
pids=()
for ((i = 0; i < n; i++)); do
  SLURM_PROCID=$i SLURM_NTASKS=$n SLURM_LOCALID=$i SLURM_TASKS_PER_NODE=$n "$@" &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
exit $rc
FAKE
  chmod +x "$dir/srun"
  export MGPU_SRUN=$dir/srun
  mode=fake
fi

out=$(timeout 120 "$MGPULAB" bench all_reduce --launcher srun --ranks 2 --backend sim --timeout 30 -b 8 -e 64K 2>&1)
rc=$?
echo "$out" | tail -n 6
[ $rc = 0 ] || fail "bench through srun ($mode) exited $rc"
echo "$out" | grep -q "Avg bus bandwidth" || fail "no bench footer through srun ($mode)"
echo "$out" | grep -Eq "^ +[0-9]+ +[0-9]+ +float" || fail "no result rows through srun ($mode)"
echo "PASS: mgpulab bench --launcher srun on 2 ranks ($mode)"
