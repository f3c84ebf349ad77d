#!/usr/bin/env bash
# fifo_inputs.sh - files a user names, or a class shares, that are not
# regular files (issue 34): `--machine FIFO`, `validate --expect FIFO`,
# `MGPULAB_CLASS=FIFO` and a FIFO open-labs.txt in the class's shared
# folder each waited for ever for a writer. All go through mgpu_file_read
# now (opened with O_NONBLOCK, a FIFO or device refused with what it is);
# a FIFO *.json in a class folder is class_report_input.sh's.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
unset MGPULAB_CLASS
mkfifo pipe.xml pipe.json
hrun out topo --machine "$tmp/pipe.xml" --backend sim
[ $rc -ne 0 ] && [ $rc -ne 137 ] && has out "pipe.xml is a FIFO \(named pipe\); only a regular file is read" && ok ||
  { bad "--machine FIFO: exit $rc"; cat out; }
hrun out whatif --machine "$tmp/pipe.xml"
[ $rc -ne 0 ] && [ $rc -ne 137 ] && has out "pipe.xml is a FIFO" && ok || { bad "whatif --machine FIFO: exit $rc"; cat out; }
hrun out validate --expect "$tmp/pipe.xml" --backend sim --machine dgx-h100 --quick
[ $rc -ne 0 ] && [ $rc -ne 137 ] && has out "pipe.xml is a FIFO" && ok || { bad "validate --expect FIFO: exit $rc"; cat out; }
hrun out topo --machine /dev/zero --backend sim
[ $rc -ne 0 ] && [ $rc -ne 137 ] && has out "/dev/zero is a device" && ok || { bad "--machine /dev/zero: exit $rc"; cat out; }

MGPULAB_CLASS=$tmp/pipe.json hrun out list
[ $rc -ne 0 ] && [ $rc -ne 137 ] && has out "pipe.json is a FIFO \(named pipe\).*\(named by MGPULAB_CLASS\)" && ok ||
  { bad "MGPULAB_CLASS=FIFO: exit $rc"; cat out; }

# the shared folder's open-labs.txt as a FIFO: the learner's mgpulab and
# the instructor's --open read it (pacing keeps labs closed until opened)
mkdir -p share
mkfifo share/open-labs.txt
printf '{"name": "Class", "backend": "sim", "machine": "dgx-h100", "share": "%s/share",
  "pacing": {"labs_opened_by_instructor": true}}' "$tmp" >class.json
MGPULAB_CLASS=$tmp/class.json hrun out list
[ $rc -eq 0 ] && has out "^ 1  Topology" && ok || { bad "list with a FIFO open-labs.txt: exit $rc"; cat out; }
MGPULAB_CLASS=$tmp/class.json hrun out run 1 --step 1 --backend sim
[ $rc -ne 137 ] && has out "not open yet" && ok || { bad "run with a FIFO open-labs.txt: exit $rc"; cat out; }
MGPULAB_CLASS=$tmp/class.json hrun out report --class share --open 01-topology
[ $rc -ne 137 ] && ! has out "opened lab 01-topology for the class" && ok ||
  { bad "report --open with a FIFO open-labs.txt: exit $rc"; cat out; }
finish
