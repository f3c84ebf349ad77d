-- labs/lib/nn/data.lua - deterministic synthetic data sets, nothing
-- downloaded: the same seed gives the same batches on every backend.
--   local data = mgpu.import("nn.data")
--   local set = data.images{classes = 10, seed = 1}
--   local x, labels = set:batch(step, 64)      -- x [64, 3, 32, 32], labels [64] i32
--   local toks = data.tokens{vocab = 64, seq = 32, seed = 1}
--   local ids, targets = toks:batch(step, 8)   -- ids [8, 32], targets [8*32] i32
local nn = mgpu.import("nn")
local data = {}

-- A 64-bit LCG (Knuth's MMIX constants); Lua integers wrap, so it is exact.
local function lcg(state) return state * 6364136223846793005 + 1442695040888963407 end
local function draw(state, n) return (state >> 33) % n end

-- Images with class-dependent structure: each class has its own random
-- 3x32x32 template; an image is its class's template plus noise of the
-- same amplitude, so a class is visible only through many pixels at once.
function data.images(opts)
  opts = opts or {}
  local set = {classes = opts.classes or 10, seed = opts.seed or 1, noise = opts.noise or 1.0,
               c = opts.channels or 3, h = opts.size or 32}
  local pixels = set.c * set.h * set.h
  set.templates = nn.empty({set.classes, pixels}):fill{kind = "random", seed = set.seed * 7919}
  function set:batch(step, n)
    local x = nn.buffer(self, "x", {n, pixels})
    local noise = nn.buffer(self, "noise", {n, pixels})
    local labels = nn.buffer(self, "labels", {n}, "i32")
    local st = self.seed * 1000003 + step
    for i = 0, n - 1 do
      st = lcg(st)
      labels:set(i, draw(st, self.classes))
    end
    mgpu.nn.embedding(labels, self.templates, x)        -- each row: its class's template
    noise:fill{kind = "random", seed = self.seed * 1000003 + step + 17}
    mgpu.nn.add(x, noise, x, {beta = self.noise})
    return x:view{n, self.c, self.h, self.h}, labels
  end
  return set
end

-- Token sequences with learnable structure: each sequence starts at a
-- random token and follows next = (a * cur + b) mod vocab, so the next
-- token is a function of the current one that a model can learn.
function data.tokens(opts)
  opts = opts or {}
  local set = {vocab = opts.vocab or 64, seq = opts.seq or 32, seed = opts.seed or 1, a = opts.a or 5, b = opts.b or 3}
  function set:batch(step, n)
    local ids = nn.buffer(self, "ids", {n, self.seq}, "i32")
    local targets = nn.buffer(self, "targets", {n * self.seq}, "i32")
    local st = self.seed * 1000003 + step
    for i = 0, n - 1 do
      st = lcg(st)
      local cur = draw(st, self.vocab)
      for t = 0, self.seq - 1 do
        ids:set(i * self.seq + t, cur)
        cur = (self.a * cur + self.b) % self.vocab
        targets:set(i * self.seq + t, cur)
      end
    end
    return ids, targets
  end
  return set
end

return data
