-- nn_bench.lua - times the training ops and a ResNet step with device
-- events, one JSON result row per case (bench/compare-nn-torch.py reads
-- them). Argument 1: "real" (compute; on cuda: the measurement) or
-- "phantom" (shape-only tensors: on the sim, the model's prediction for
-- the machine's GPU, with nothing computed). Argument 2: a case name to
-- run alone, or a prefix and "*" ("conv*"; default: all).
--   mgpulab spmd bench/nn_bench.lua --backend cuda --ranks 1 -- real
--   mgpulab spmd bench/nn_bench.lua --backend sim --machine dgx-h200 --ranks 1 -- phantom
local nn = mgpu.import("nn")
local resnet = mgpu.import("nn.resnet")
local data = mgpu.import("nn.data")
local phantom = (mgpu.args[1] or "real") == "phantom"
local only = mgpu.args[2]
nn.phantom = phantom

local function T(shape, dtype, seed)
  local t = nn.empty(shape, dtype)
  t:fill{kind = "random", seed = seed or 1}
  return t
end

-- milliseconds per call of fn: 3 warm-up calls, then reps timed by events
local function time(fn, reps)
  for _ = 1, 3 do fn() end
  local a, b = mgpu.event{timing = true}, mgpu.event{timing = true}
  a:record()
  for _ = 1, reps do fn() end
  b:record()
  b:synchronize()
  return a:elapsed(b) / reps
end

local results = {}
-- only: a case's name, or "prefix*", or several of those joined by commas
local function wanted(name)
  if not only then return true end
  for pat in only:gmatch("[^,]+") do
    if pat == name or (pat:sub(-1) == "*" and name:sub(1, #pat - 1) == pat:sub(1, -2)) then return true end
  end
  return false
end

local function case(name, flops, bytes, reps, setup)
  if not wanted(name) then return end
  local fn = setup()
  local ms = time(fn, reps)
  results[#results + 1] = {name = name, ms = ms, tflops = flops > 0 and flops / ms / 1e9 or nil,
                           gbs = bytes > 0 and bytes / ms / 1e6 or nil}
  print(("%-34s %9.4f ms%s"):format(name, ms, flops > 0 and ("  %7.1f TFLOP/s"):format(flops / ms / 1e9) or
        ("  %7.1f GB/s"):format(bytes / ms / 1e6)))
  collectgarbage()
end

local function gemm_case(dt, m, n, k, reps)
  case(("gemm %s %dx%dx%d"):format(dt, m, n, k), 2 * m * n * k, 0, reps, function()
    local a, b, c = T({m, k}, dt, 1), T({k, n}, dt, 2), T({m, n}, dt, 3)
    return function() mgpu.nn.gemm(a, b, c) end
  end)
end

gemm_case("bf16", 4096, 4096, 4096, 20)
gemm_case("bf16", 8192, 28672, 8192, 5)
gemm_case("bf16", 1024, 1024, 1024, 50)
gemm_case("bf16", 2048, 8192, 2048, 20)
gemm_case("f32", 4096, 4096, 4096, 5)

case("conv2d bf16 256x64x32x32 3x3", 2 * 256 * 64 * 32 * 32 * 64 * 9, 0, 10, function()
  local x, w, y = T({256, 64, 32, 32}, "bf16"), T({64, 64, 3, 3}, "bf16"), T({256, 64, 32, 32}, "bf16")
  return function() mgpu.nn.conv2d(x, w, y, {pad = 1}) end
end)
case("relu bf16 64M", 0, 2 * 2 * 64 * 2 ^ 20, 20, function()
  local x, y = T({64 * 2 ^ 20}, "bf16"), T({64 * 2 ^ 20}, "bf16")
  return function() mgpu.nn.act("relu", x, y) end
end)
case("add f32 32M", 0, 3 * 4 * 32 * 2 ^ 20, 20, function()
  local x, y = T({32 * 2 ^ 20}), T({32 * 2 ^ 20})
  return function() mgpu.nn.add(x, y, y) end
end)
case("layernorm bf16 16384x4096", 0, 2 * 2 * 16384 * 4096, 20, function()
  local x, y, g, b = T({16384, 4096}, "bf16"), T({16384, 4096}, "bf16"), T({4096}, "bf16"), T({4096}, "bf16")
  local m, r = T({16384}), T({16384})
  return function() mgpu.nn.layernorm(x, g, b, y, m, r) end
end)
case("rmsnorm bf16 16384x4096", 0, 2 * 2 * 16384 * 4096, 20, function()
  local x, y, g, r = T({16384, 4096}, "bf16"), T({16384, 4096}, "bf16"), T({4096}, "bf16"), T({16384})
  return function() mgpu.nn.rmsnorm(x, g, y, r) end
end)
-- The row ops and streaming ops alone, forward and backward (issue 33's
-- targets: each >= 1.0x torch). bytes: what each must move once.
case("softmax bf16 65536x2048", 0, 2 * 2 * 65536 * 2048, 10, function()
  local s, p = T({65536, 2048}, "bf16"), T({65536, 2048}, "bf16")
  return function() mgpu.nn.softmax(s, p, {scale = 1 / math.sqrt(128)}) end
end)
case("softmax causal bf16 65536x2048", 0, 2 * 2 * 65536 * 2048, 10, function()
  local s, p = T({65536, 2048}, "bf16"), T({65536, 2048}, "bf16")
  return function() mgpu.nn.softmax(s, p, {scale = 1 / math.sqrt(128), causal = true}) end
end)
case("softmax backward bf16 65536x2048", 0, 3 * 2 * 65536 * 2048, 10, function()
  local p, dp, ds = T({65536, 2048}, "bf16", 1), T({65536, 2048}, "bf16", 2), T({65536, 2048}, "bf16", 3)
  return function() mgpu.nn.softmax_backward(p, dp, ds) end
end)
-- bf16 and f32: the one-pass kernel holds 8 columns a thread either way
for _, d in ipairs({{"bf16", 2}, {"f32", 4}}) do
  local dt, esz = d[1], d[2]
  case("layernorm backward " .. dt .. " 16384x4096", 0, 3 * esz * 16384 * 4096, 20, function()
    local x, dy, dx = T({16384, 4096}, dt, 1), T({16384, 4096}, dt, 2), T({16384, 4096}, dt, 3)
    local g, dg, db = T({4096}, dt), T({4096}, dt), T({4096}, dt)
    local m, r = T({16384}), T({16384})
    return function() mgpu.nn.layernorm_backward(x, g, m, r, dy, dx, dg, db) end
  end)
  case("rmsnorm backward " .. dt .. " 16384x4096", 0, 3 * esz * 16384 * 4096, 20, function()
    local x, dy, dx = T({16384, 4096}, dt, 1), T({16384, 4096}, dt, 2), T({16384, 4096}, dt, 3)
    local g, dg, r = T({4096}, dt), T({4096}, dt), T({16384})
    return function() mgpu.nn.rmsnorm_backward(x, g, r, dy, dx, dg) end
  end)
end
case("relu backward bf16 64M", 0, 3 * 2 * 64 * 2 ^ 20, 20, function()
  local x, dy, dx = T({64 * 2 ^ 20}, "bf16", 1), T({64 * 2 ^ 20}, "bf16", 2), T({64 * 2 ^ 20}, "bf16", 3)
  return function() mgpu.nn.act_backward("relu", x, dy, dx) end
end)
case("bias_add bf16 16384x4096", 0, 2 * 2 * 16384 * 4096, 20, function()
  local x, b, y = T({16384, 4096}, "bf16"), T({4096}, "bf16"), T({16384, 4096}, "bf16")
  return function() mgpu.nn.bias_add(x, b, y) end
end)
case("attention bf16 b4 h8 t2048 d128", 4 * 4 * 8 * 2048 * 2048 * 128, 0, 10, function()
  -- S = Q K^T, causal softmax, O = P V, written plainly (not fused)
  local q, k, v = T({32, 2048, 128}, "bf16"), T({32, 2048, 128}, "bf16"), T({32, 2048, 128}, "bf16")
  local s, p, o = T({32, 2048, 2048}, "bf16"), T({32, 2048, 2048}, "bf16"), T({32, 2048, 128}, "bf16")
  return function()
    mgpu.nn.gemm(q, k, s, {tb = true})
    mgpu.nn.softmax(s, p, {scale = 1 / math.sqrt(128), causal = true})
    mgpu.nn.gemm(p, v, o)
  end
end)

-- conv2d at the shapes of labs/lib/nn/resnet.lua (width 16: 16-64
-- channels; 32x32, 16x16, 8x8; the stem, the stride-2 stage entries and
-- their 1x1 shortcuts) and a wide layer, batch 256 and 32, each dtype:
-- forward, the weight gradient alone (dx nil) and the whole backward (dx
-- and dw). scripts/compare-nn-torch.py times torch's the same way.
-- {N, C, H, W, K, R, stride}; pad R // 2.
local conv_shapes = {
  {256, 3, 32, 32, 16, 3, 1}, {256, 16, 32, 32, 16, 3, 1}, {256, 16, 32, 32, 32, 3, 2}, {256, 16, 32, 32, 32, 1, 2},
  {256, 32, 16, 16, 32, 3, 1}, {256, 32, 16, 16, 64, 3, 2}, {256, 64, 8, 8, 64, 3, 1}, {256, 64, 32, 32, 64, 3, 1},
  {32, 64, 8, 8, 64, 3, 1}, {32, 16, 32, 32, 16, 3, 1},
}
for _, dt in ipairs{"f32", "bf16"} do
  for _, sh in ipairs(conv_shapes) do
    local n, c, h, w, k, r, st = table.unpack(sh)
    local pad = r // 2
    local p, q = (h + 2 * pad - r) // st + 1, (w + 2 * pad - r) // st + 1
    local name = ("conv %s %dx%dx%dx%d>%d %dx%d s%d"):format(dt, n, c, h, w, k, r, r, st)
    local flops = 2 * n * k * p * q * c * r * r
    local function tensors()
      return T({n, c, h, w}, dt, 1), T({k, c, r, r}, dt, 2), T({n, k, p, q}, dt, 3), T({n, c, h, w}, dt, 4),
             T({k, c, r, r}, dt, 5)
    end
    case(name .. " fwd", flops, 0, 10, function()
      local x, wt, y = tensors()
      return function() mgpu.nn.conv2d(x, wt, y, {stride = st, pad = pad}) end
    end)
    case(name .. " dw", flops, 0, 10, function()
      local x, wt, dy, _, dw = tensors()
      return function() mgpu.nn.conv2d_backward(x, wt, dy, nil, dw, {stride = st, pad = pad}) end
    end)
    case(name .. " dx+dw", 2 * flops, 0, 10, function()
      local x, wt, dy, dx, dw = tensors()
      return function() mgpu.nn.conv2d_backward(x, wt, dy, dx, dw, {stride = st, pad = pad}) end
    end)
  end
end

for _, depth in ipairs{8, 20} do
  case(("resnet-%d step f32 batch 256"):format(depth), 0, 0, 5, function()
    local model = resnet.new{depth = depth}
    local params = model:parameters()
    local set = data.images{seed = 1}
    local x, labels = set:batch(1, 256)
    local ce, opt = nn.cross_entropy(), nn.sgd{lr = 0.01}
    return function()
      local _, dl = ce:forward(model:forward(x), labels)
      model:backward(dl)
      opt:step(params)
    end
  end)
end

mgpu.result{phantom = phantom, backend = mgpu.backend, cases = results}
