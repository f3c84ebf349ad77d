#!/usr/bin/env bash
# nn_train.sh - the Lua nn library on the sim: ResNet-8 trained 60 steps of
# batch 32 on the synthetic images reaches >= 85 % on held-out batches (10
# classes: chance is 10 %) with the loss falling; two ranks training with
# the same seed end with bit-identical parameters (determinism); a Llama-
# style decoder learns its token sequences (loss / 4, >= 90 % next-token
# accuracy) and reports gradients ready from the head back; every module's
# backward matches finite differences (tests/data/nn_modules_fd.lua); the
# module loader refuses names outside the library; an op given a tensor of
# the wrong rank says so.
set -u
bin=$1
src=${MGPU_SOURCE_DIR:?MGPU_SOURCE_DIR must point at the source tree}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

"$bin" spmd "$src/examples/spmd/train_resnet.lua" --backend sim --ranks 2 --time-limit 600 -- 60 32 8 >"$tmp/train" 2>&1; rc=$?
[ $rc -eq 0 ] && ok || { bad "train_resnet.lua: rc=$rc"; cat "$tmp/train"; }
if python3 - "$tmp/train" <<'PY'
import json, re, sys
rows = [json.loads(m) for m in re.findall(r'^\[rank \d\] result (\{.*\})$', open(sys.argv[1]).read(), re.M)]
assert len(rows) == 2, f"want 2 result rows, saw {len(rows)}"
for r in rows:
    assert r["accuracy"] >= 0.85, f"held-out accuracy {r['accuracy']}, want >= 0.85"
    assert r["last_loss"] < 0.5 * r["first_loss"], f"loss {r['first_loss']} -> {r['last_loss']}: did not halve"
assert rows[0]["checksum"] == rows[1]["checksum"], f"same seed, different parameters: {rows[0]['checksum']} vs {rows[1]['checksum']}"
PY
then ok; else bad "training result"; cat "$tmp/train"; fi

# the decoder: loss falls, next-token accuracy high, gradient-ready hooks
# fire once per parameter from the LM head back to the embedding
"$bin" spmd "$src/examples/spmd/train_decoder.lua" --backend sim --ranks 1 --time-limit 600 -- 60 8 2 >"$tmp/dec" 2>&1; rc=$?
if [ $rc -eq 0 ] && python3 - "$tmp/dec" <<'PY'
import json, re, sys
r = json.loads(re.search(r'^\[rank 0\] result (\{.*\})$', open(sys.argv[1]).read(), re.M).group(1))
assert r["last_loss"] < 0.25 * r["first_loss"], r
assert r["accuracy"] >= 0.9, r
assert r["ready_count"] == r["params"] and r["ready_first"] == "lm_head.weight" and r["ready_last"] == "embed.weight", r
PY
then ok; else bad "decoder training: rc=$rc"; cat "$tmp/dec"; fi

# every module's backward against finite differences of the loss
"$bin" spmd "$src/tests/data/nn_modules_fd.lua" --backend sim --ranks 1 --time-limit 600 >"$tmp/fd" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c 'worst relative error' "$tmp/fd")" -eq 3 ] && ok || { bad "module gradients: rc=$rc"; cat "$tmp/fd"; }

# the ops are kernel spans on the timeline, with their modelled durations
"$bin" spmd "$src/examples/spmd/train_resnet.lua" --backend sim --ranks 1 --trace "$tmp/t.json" -- 2 8 8 >"$tmp/tr" 2>&1; rc=$?
if [ $rc -eq 0 ] && python3 - "$tmp/t.json" <<'PY'
import json, sys
xs = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X" and e["cat"] == "kernel"]
names = {e["name"] for e in xs}
for want in ("conv2d", "conv2d_backward", "batchnorm", "batchnorm_backward", "relu", "relu_backward", "gemm",
             "cross_entropy", "sgd", "avgpool"):
    assert want in names, f"no {want} kernel span in {sorted(names)}"
conv = [e for e in xs if e["name"] == "conv2d"]
assert all(e["dur"] > 0 for e in conv), "a conv2d took no modelled time"
PY
then ok; else bad "training spans: rc=$rc"; cat "$tmp/tr"; fi

# the loader: only library names, nothing outside labs/lib
cat >"$tmp/imp.lua" <<'LUA'
for _, name in ipairs{"../x", "nn/../../etc", "NN", "nn..x", "nope"} do
  local okk, err = pcall(mgpu.import, name)
  print(name, okk, err)
end
print("same", mgpu.import("nn") == mgpu.import("nn"))
LUA
"$bin" spmd "$tmp/imp.lua" --backend sim --ranks 1 >"$tmp/imp" 2>&1
[ "$(grep -c 'false.*is not a library module name' "$tmp/imp")" -eq 4 ] && ok || { bad "bad names not refused"; cat "$tmp/imp"; }
grep -q "nope.*false.*no module 'nope' in the library" "$tmp/imp" && ok || { bad "missing module"; cat "$tmp/imp"; }
grep -q "same.*true" "$tmp/imp" && ok || bad "a module runs once"

# an op given a tensor of the wrong rank names the op, the tensor, its shape
# and the rank it must have (nn_want_ndim)
cat >"$tmp/rank.lua" <<'LUA'
local nn, x = mgpu.nn, mgpu.tensor{shape = {2, 3, 4}, dtype = "f32"}
local y = mgpu.tensor{shape = {2, 3}, dtype = "f32"}
local labels, loss = mgpu.tensor{shape = {2}, dtype = "i32"}, mgpu.tensor{shape = {1}, dtype = "f32"}
for _, f in ipairs{function() nn.avgpool(x, y) end, function() nn.avgpool_backward(y, x) end,
                   function() nn.swap12(x, x) end, function() nn.cross_entropy(x, labels, loss, nil) end} do
  print(select(2, pcall(f)))
end
LUA
"$bin" spmd "$tmp/rank.lua" --backend sim --ranks 1 >"$tmp/rank" 2>&1
for want in "avgpool: x is \[2, 3, 4\] f32 but must be \[N, C, H, W\]" \
            "avgpool_backward: dx is \[2, 3, 4\] f32 but must be \[N, C, H, W\]" \
            "swap12: x is \[2, 3, 4\] f32 but must have 4 dims" \
            "cross_entropy: logits is \[2, 3, 4\] f32 but must be \[rows, classes\]"; do
  grep -q "$want" "$tmp/rank" && ok || { bad "wrong rank: want '$want'"; cat "$tmp/rank"; }
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
