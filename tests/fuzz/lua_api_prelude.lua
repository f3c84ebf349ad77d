-- lua_api_prelude.lua - what every program of the Lua API fuzzer
-- (fuzz_lua_api.c) runs first: pools of tensors, streams, events and
-- communicators, and actions on them. A program is a list of lines
-- run("action", a, b, c, d) with small integers; each action picks its
-- values from the pools by those numbers, so any line may name a freed
-- tensor, a view of one, a destroyed stream, a wrong type or an options
-- table whose __index frees, destroys or collects in the middle of the call.
-- Outcomes ("fill:ok", "copy:this tensor was freed") go to SEEN, the
-- driver's sign that a program did something new.
T, S, E, C = {}, {}, {}, {}
SEEN = {}
local NT, NS, NE, NC = 8, 4, 3, 3
local dtypes = { "f32", "bf16", "f16", "i32" }
local kinds = { "device", "device", "device", "pinned", "pageable" }

local function slot(n, x) return (x or 0) % n + 1 end
local function t(x) return T[slot(NT, x)] end
local function s(x) return S[slot(NS, x)] end
local function e(x) return E[slot(NE, x)] end
local function c(x) return C[slot(NC, x)] end

-- A value of any kind: what a confused or hostile caller passes.
local odd = { 0, -1, 1, 2 ^ 31, 2 ^ 53, 1.5, -0.0, "x", "sum", "max", true, false }
local function any(x)
  x = x or 0
  local k = x % 6
  if k == 0 then return t(x // 6) end
  if k == 1 then return s(x // 6) end
  if k == 2 then return nil end
  if k == 3 then return odd[slot(#odd, x // 6)] end
  if k == 4 then return c(x // 6) end
  return {}
end

-- Something the script does behind a call's back.
local function evil(x)
  x = x or 0
  local k = x % 12
  local i = x // 12
  if k == 0 then local v = t(i); if v then v:free() end
  elseif k == 1 then local v = s(i); if v then v:destroy() end
  elseif k == 2 then local v = c(i); if v then v:destroy() end
  elseif k == 3 then collectgarbage()
  elseif k == 4 then T[slot(NT, i)] = nil; collectgarbage(); collectgarbage()
  elseif k == 5 then S[slot(NS, i)] = nil; collectgarbage()
  elseif k == 6 then C[slot(NC, i)] = nil; collectgarbage()
  elseif k == 7 then local v = e(i); if v then v:destroy() end
  elseif k == 8 then error("evil " .. i)
  elseif k == 9 then mgpu.synchronize()
  elseif k == 10 then return mgpu.stream()
  else local v = t(i); if v then local w <close> = v end end
end

-- Options: none, a plain table, or one whose __index runs evil(x) when
-- `key` is read and returns a value picked by y.
local okeys = { "stream", "count", "value", "kind", "seed", "dst_offset", "src_offset", "engine", "alpha", "beta",
                "ta", "tb", "stride", "pad", "eps", "lr", "step", "scale", "causal", "train", "accumulate",
                "momentum", "max_norm", "device", "dtype", "shape", "name", "phantom" }
local function ovalue(key, y)
  y = y or 0
  if key == "stream" then return y % 3 == 0 and s(y) or nil end
  if key == "kind" then return ({ "const", "random", "index", "bogus" })[slot(4, y)] end
  if key == "engine" then return ({ "ce", "sm", "xx" })[slot(3, y)] end
  if key == "dtype" then return dtypes[slot(4, y)] end
  if key == "shape" then return { 1 + y % 8, 1 + y % 5 } end
  if key == "name" then return "n" .. y end
  if key == "phantom" or key == "causal" or key == "train" or key == "accumulate" then return y % 2 == 0 end
  if key == "count" or key == "dst_offset" or key == "src_offset" then return ({ 0, 1, 7, 64, -1, 2 ^ 40 })[slot(6, y)] end
  return ({ 0, 1, 2, 0.5, -3, 1e-5 })[slot(6, y)]
end
local function O(x, y)
  x, y = x or 0, y or 0
  local k = x % 4
  if k == 0 then return nil end
  local key = okeys[slot(#okeys, y)]
  if k == 1 then return { [key] = ovalue(key, y // 3) } end
  local plain = k == 3 and { [key] = ovalue(key, y) } or {}
  return setmetatable(plain, { __index = function(_, kk)
    if kk == key or k == 2 then
      local r = evil(x // 4 + y)
      if kk == "stream" and r then return r end
    end
    return ovalue(kk, y // 7)
  end })
end

A = {}
function A.tensor(i, a, b)
  a, b = a or 0, b or 0
  local n = 1 + (a * 37) % 4099
  local form = b % 6
  if form == 0 then T[slot(NT, i)] = mgpu.tensor(n)
  elseif form == 1 then T[slot(NT, i)] = mgpu.tensor(n, dtypes[slot(4, a)], kinds[slot(5, b // 6)])
  elseif form == 2 then T[slot(NT, i)] = mgpu.tensor{ shape = { 1 + a % 16, 1 + b % 16 }, dtype = dtypes[slot(2, a)] }
  elseif form == 3 then T[slot(NT, i)] = mgpu.tensor{ count = n, phantom = true }
  elseif form == 4 then T[slot(NT, i)] = mgpu.tensor{ shape = { 2, 4, 4, 4 }, name = "x" .. a }
  else T[slot(NT, i)] = mgpu.tensor{ count = n, device = a % 9 } end
end
function A.view(i, j, a, b)
  local v = t(j)
  a, b = a or 0, b or 0
  local k = a % 3
  if k == 0 then T[slot(NT, i)] = v:view{ 1 + a % 8, 1 + b % 8 }
  elseif k == 1 then T[slot(NT, i)] = v:slice(b % 4, 1 + a % 3)
  else T[slot(NT, i)] = v:flat(b % 16, 1 + a % 64) end
end
function A.free(i) t(i):free() end
function A.drop(i) T[slot(NT, i)] = nil end
function A.gc() collectgarbage() end
function A.evil(x) evil(x) end
function A.fill(i, x, y) t(i):fill(O(x, y)) end
function A.fillnum(i, j) t(i):fill(1.5, s(j)) end
function A.get(i, a) return t(i):get(a or 0) end
function A.set(i, a, b) t(i):set(a or 0, any(b)) end
function A.read(i, a)
  local v = t(i)
  local k = (a or 0) % 4
  if k == 0 then v:checksum(s(a)) elseif k == 1 then v:to_table(16) elseif k == 2 then v:compare(t(a), 1e-3)
  else return tostring(v), #v, v:shape(), v:bytes(), v:dtype(), v:kind(), v:device(), v:is_phantom() end
end
function A.name(i, a) t(i):name(any(a)) end
function A.copy(i, j, x, y) mgpu.copy(t(i), t(j), O(x, y)) end
function A.stream(j, a) S[slot(NS, j)] = mgpu.stream(a and a % 2 == 0 and { name = "s" .. a } or nil) end
function A.sdestroy(j) s(j):destroy() end
function A.ssync(j, a) if (a or 0) % 2 == 0 then s(j):synchronize() else s(j):query() end end
function A.event(k, a) E[slot(NE, k)] = mgpu.event{ timing = (a or 0) % 2 == 0 } end
function A.erecord(k, j) e(k):record(s(j)) end
function A.ewait(k, j, a) if (a or 0) % 2 == 0 then e(k):wait(s(j)) else s(j):wait(e(k)) end end
function A.esync(k, a) if (a or 0) % 2 == 0 then e(k):synchronize() else return e(k):elapsed(e(a)) end end
function A.edestroy(k) e(k):destroy() end
function A.world(k) C[slot(NC, k)] = mgpu.comm() end
function A.split(k, m, a) C[slot(NC, k)] = c(m):split((a or 0) % 3 == 2 and nil or 0, nil, "sub" .. (a or 0)) end
function A.cdestroy(k) c(k):destroy() end
function A.cstream(j, k) S[slot(NS, j)] = c(k):stream() end
function A.cinfo(k) local x = c(k); return x:rank(), x:size(), x:name(), tostring(x), x:async_error(), x:flight(4) end
local colls = { "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "barrier" }
function A.coll(k, i, j, a)
  local x = c(k)
  local op = colls[slot(#colls, a)]
  if op == "barrier" then return x:barrier(any(i)) end
  local extra1, extra2 = any(a // 7), any(a // 11)
  if (a or 0) % 2 == 0 then return x[op](x, t(i), t(j), extra1, extra2) end
  return x[op](x, t(i), extra1, extra2)
end
-- A group: a send first, then whatever the script does, then the matching
-- receive (a receive left alone would wait for the watchdog).
function A.group(k, i, j, a)
  local x = c(k)
  mgpu.group(function()
    x:send(t(i), 0)
    if (a or 0) % 3 ~= 0 then pcall(evil, a // 3) end
    if (a or 0) % 5 == 1 then mgpu.group(function() pcall(evil, a // 5) end) end
    if (a or 0) % 7 == 2 then local y <close> = x end
    x:recv(t(j), 0)
  end)
end
local nnops = { "gemm", "add", "act", "softmax", "sgd", "adamw", "conv2d", "sumsq", "bias_add", "swap12", "rmsnorm",
                "cross_entropy", "embedding", "avgpool", "batchnorm" }
function A.nn(a, i, j, x)
  local op = nnops[slot(#nnops, a)]
  local o = O(x, a // 16)
  local f = mgpu.nn[op]
  if op == "act" then return f("relu", t(i), t(j), o) end
  if op == "batchnorm" then return f(t(i), t(j), t(i + 1), t(j + 1), t(i + 2), nil, nil, t(j + 2), o) end
  if op == "rmsnorm" or op == "adamw" then return f(t(i), t(j), t(i + 1), t(j + 1), o) end
  if op == "cross_entropy" then return f(t(i), t(j), t(i + 1), nil, o) end
  if op == "sumsq" or op == "avgpool" or op == "softmax" or op == "swap12" then return f(t(i), t(j), o) end
  return f(t(i), t(j), t(i + 1), o)
end
-- A well-formed op now and then, so calls get past their checks.
function A.gemm_ok(i, x, y)
  local a, b, cc = mgpu.tensor{ shape = { 8, 8 } }:fill(1), mgpu.tensor{ shape = { 8, 8 } }:fill(2),
      mgpu.tensor{ shape = { 8, 8 } }
  T[slot(NT, i)] = a
  mgpu.nn.gemm(a, b, cc, O(x, y))
  return cc:get(0)
end
function A.close(i, k)
  if (k or 0) % 2 == 0 then local v <close> = t(i) else local v <close> = c(k) end
end
function A.co(x, y)
  local co = coroutine.create(function() mgpu.copy(t(x), t(y), O(x, y)); evil(x + y) end)
  return coroutine.resume(co)
end
function A.span(i, j, x) return mgpu.span("f", function() evil(x); return t(i):fill(1) end, s(j)) end
function A.mem(i, a)
  local k = (a or 0) % 5
  if k == 0 then return mgpu.memory_stats() elseif k == 1 then mgpu.empty_cache()
  elseif k == 2 then return mgpu.pointer_info(t(i), a) elseif k == 3 then return mgpu.mem_info()
  else mgpu.memory_reset_peak() end
end
function A.ipc(i, j)
  local h = t(i):ipc_handle()
  T[slot(NT, j)] = mgpu.ipc_open(h)
  if (j or 0) % 2 == 0 then T[slot(NT, j)]:ipc_close() end
end
function A.share(a) return mgpu.share("v" .. (a or 0)) end
function A.result(i) mgpu.result{ t = t(i), n = 1 } end
function A.whatif(a) return mgpu.whatif{ dp = 1 + (a or 0) % 4, micro_batches = 1 + (a or 0) % 8, layers = 2 } end

-- One line of a program: the outcome's shape goes to SEEN.
function run(name, ...)
  local f = A[name]
  if not f then return end
  local ok, err = pcall(f, ...)
  local what = ok and "ok" or tostring(err):gsub("^[^:]*:%d+: ", ""):gsub("[%d%.]+", "#"):sub(1, 48)
  SEEN[name .. ":" .. what] = true
end
