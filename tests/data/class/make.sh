#!/usr/bin/env bash
# make.sh - regenerate this sample class from real mgpulab runs (the sim,
# labs 0 and 1 under a class configuration): bash tests/data/class/make.sh
# BIN. Four people: Ada (everything of lab 0 right), Alan (a wrong answer
# twice, hello.lua unsolved), Grace (exported twice: grace2.json early,
# grace.json later) and "Barbara | Liskov" (asked for a solution); plus an
# upload cut short (damaged.json) and a file of another tool (foreign.json).
# tests/cli/report.sh reads the result.
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d /tmp/mgpu-class-sample.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export MGPULAB_LABS=$src/labs XDG_CONFIG_HOME=$tmp/config
unset MGPULAB_CHECKS
source "$src/tests/cli/class_lib.bash"
class_config "$tmp/class.json"
mkdir -p "$tmp/out"
for who in ada alan grace barbara; do "make_$who" "$tmp/out"; done
make_bad_files "$tmp/out" alan.json
rm -f "$here"/*.json
cp "$tmp/out"/*.json "$here/"
ls "$here"
