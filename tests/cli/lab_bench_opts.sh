#!/usr/bin/env bash
# lab_bench_opts.sh - lab.bench refuses bad opts with a message that names
# the key, the value and what is allowed (the values are checked by the
# setter `mgpulab bench` uses, mgpu_collbench_set), and a key it does not
# know is refused instead of running the default sweep in silence. A lab in
# a temporary directory calls lab.bench under pcall and prints each error.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/labs/01-benchopts"
cat >"$tmp/labs/01-benchopts/lab.lua" <<'LUA'
return {
  title = "Bench opts", summary = "lab.bench's refusals", ranks = 2,
  steps = {
    { id = "bad", title = "bad opts",
      run = function(lab)
        local cases = {
          { "gather", {} }, { "all_reduce", { b = "12Q" } }, { "all_reduce", { o = "mean" } },
          { "all_reduce", { c = 2 } }, { "all_reduce", { B = "1M" } }, { "all_reduce", { minbytes = "1M" } },
          { "all_reduce", { b = true } }, { "all_reduce", { "1M" } }, { "all_reduce", { b = "1M", e = "1K" } },
          { "all_reduce", { d = "double" } }, { "all_reduce", { n = 0 } }, { "all_reduce", { f = 2.5 } },
          { "all_reduce", { G = 0 } }, { "all_reduce", "x" },
          { "all_reduce", { b = 1024, e = "4K", f = 4, n = 1, w = 0, c = 1, o = "max", d = "int32", r = 0, z = 0,
                            a = 1, i = "1K", ranks = 2, launcher = "local", env = {}, per_node = 0 } },
        }
        for i, c in ipairs(cases) do
          local ok, err = pcall(lab.bench, c[1], c[2])
          print(("case %d: %s"):format(i, ok and ("OK " .. #err.rows .. " rows " .. err.rows[1].type .. " "
                                                  .. err.rows[1].redop) or tostring(err)))
        end
        return {}
      end,
      check = function() return { ok = true } end },
  },
}
LUA
export MGPULAB_LABS=$tmp/labs MGPULAB_CHECKS=$src/checks XDG_STATE_HOME=$tmp/state
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
"$bin" run benchopts --step 1 --backend sim --machine dgx-h100 >"$tmp/out" 2>&1
[ $? -eq 0 ] && ok || { bad "run exited $?"; cat "$tmp/out"; }
want() { # want CASE TEXT: case CASE's line has TEXT (fixed string)
  if grep -F -- "case $1: $2" "$tmp/out" >/dev/null; then ok; else bad "case $1 lacks '$2'"; grep -- "case $1:" "$tmp/out"; fi
}
want 1 "lab.bench: 'gather' is not a collective; use all_reduce, all_gather, broadcast, reduce_scatter, reduce, alltoall or sendrecv"
want 2 "lab.bench: opts.b: '12Q' is not a size; expected digits with an optional K, M, G or T suffix"
want 3 "lab.bench: opts.o: 'mean' is not a reduction; use sum, prod, max, min, avg or all"
want 4 "lab.bench: opts.c (check 0 or 1): 2 is out of range (0..1)"
keys="use b, e, f, i, n, w, c, o, d, r, z, a (nccl-tests' flags), ranks, launcher, per_node, env or fault"
want 5 "lab.bench: opts.B is not an option of lab.bench; $keys"
want 6 "lab.bench: opts.minbytes is not an option of lab.bench; $keys"
want 7 "lab.bench: opts.b is a boolean; give nccl-tests' -b value as a string or a number"
want 8 "lab.bench: opts has a number key (1); opts are named fields: b, e, f"
want 9 "lab.bench: the sweep of opts.b, e, f, i: -b 1048576 is larger than -e 1024"
want 10 "lab.bench: opts.d: nccl-tests' type 'double' is not supported by mgpulab; use float, half, bfloat16, int32 or all"
want 11 "lab.bench: opts.n: 0 is out of range (1..1000000)"
want 12 "lab.bench: opts.f: '2.5' is not a whole number"
want 13 "lab.bench: opts.G is not an option of lab.bench"
want 14 "lab.bench(coll, opts): opts must be a table"
want 15 "OK 2 rows int32 max"
# no refused call ran a sweep (the bench job logs each row it measures)
n=$(grep -c "bench row" "$tmp/out")
[ "$n" -eq 2 ] && ok || { bad "$n bench rows measured; only the last case's 2 should run"; cat "$tmp/out"; }
echo "lab_bench_opts: $pass passed, $fail failed"
[ $fail -eq 0 ]
