-- labs/lib/whatif/step.lua - lab 6's "what-if at scale" step, the part
-- that runs on a rank (mgpu.whatif is there, not in the lab's sandbox):
-- the note's Llama-2-70B as DP 8 x TP 8 x PP 4 on 256 H100s, and the two
-- layouts the learner picked, each simulated timing-only in this one
-- process (engine/whatif). It returns, as result rows, the tables to show
-- and what the step's questions are checked against (derived from the
-- runs, never fixed here). labs/06-tpdp/whatif.lua is the lab side.
--   local step = mgpu.import("whatif.step")
--   step.run{"16x4x4", "2x8x16"}   -- the learner's layouts, "DPxTPxPP"
local step = {}

step.NOTE = {dp = 8, tp = 8, pp = 4}
step.GPUS = 256
-- Every layout keeps the same model and global batch (1024 sequences of
-- 4096 tokens, Llama 2's 4M tokens), and recomputes activations: keeping
-- them all, the note's layout needs 81 GiB on stage 0 of an 80 GB H100.
step.COMMON = {global_batch = 1024, recompute = 1, machine = "dgx-h100"}

-- "16x4x4" (or "16 x 4 x 4", "dp=16 tp=4 pp=4") -> {dp, tp, pp}, or nil and why.
function step.parse(s)
  if type(s) ~= "string" or s:match("^%s*$") then return nil, "no layout given" end
  local d, t, p = s:lower():match("^%s*dp%s*=%s*(%d+)[%s,]+tp%s*=%s*(%d+)[%s,]+pp%s*=%s*(%d+)%s*$")
  if not d then d, t, p = s:lower():match("^%s*(%d+)%s*[x%*]%s*(%d+)%s*[x%*]%s*(%d+)%s*$") end
  if not d then return nil, ("'%s' is not a layout: write DPxTPxPP, e.g. 16x4x4"):format(s) end
  local l = {dp = math.tointeger(tonumber(d)), tp = math.tointeger(tonumber(t)), pp = math.tointeger(tonumber(p))}
  if l.dp * l.tp * l.pp ~= step.GPUS then
    return nil, ("%dx%dx%d uses %d GPUs; the cluster has %d"):format(l.dp, l.tp, l.pp, l.dp * l.tp * l.pp, step.GPUS)
  end
  return l
end

function step.name(l) return ("%dx%dx%d"):format(l.dp, l.tp, l.pp) end

-- One layout simulated: the what-if's table, or nil and the engine's error.
function step.simulate(l)
  local opts = {dp = l.dp, tp = l.tp, pp = l.pp}
  for k, v in pairs(step.COMMON) do opts[k] = v end
  local ok, r = pcall(mgpu.whatif, opts)
  if not ok then return nil, tostring(r):gsub("^.-mgpu%.whatif: ", "") end
  return r
end

local function gib(b) return ("%.1f"):format(b / 2 ^ 30) end
local function sec(ms) return ("%.2f"):format(ms / 1000) end

-- The axis whose traffic costs a layout the most time per step.
function step.busiest_axis(r)
  local best, name = -1, "-"
  for _, k in ipairs{"tp", "pp", "dp"} do
    local t = r.traffic[k]
    if t.total_ms > best then best, name = t.total_ms, k:upper() end
  end
  return name
end

local function traffic_rows(name, r)
  local rows = {}
  for _, k in ipairs{"tp", "pp", "dp"} do
    local t = r.traffic[k]
    rows[#rows + 1] = {name, t.axis, t.group > 1 and t.collective or "(not split)",
                       t.group > 1 and ("%.1f MiB"):format(t.bytes / 2 ^ 20) or "-", tostring(math.tointeger(t.calls)),
                       t.link, t.group > 1 and ("%.0f us"):format(t.call_us) or "-", ("%.0f ms"):format(t.total_ms)}
  end
  return rows
end

-- args: the learner's two layouts (strings, "" when not answered).
function step.run(args)
  local layouts = {{name = "note", l = step.NOTE}}
  local problems = {}
  for i = 1, 2 do
    local s = args[i]
    if s and s ~= "" then
      local l, why = step.parse(s)
      if l then layouts[#layouts + 1] = {name = i == 1 and "a" or "b", l = l}
      else problems[#problems + 1] = ("layout_%s: %s"):format(i == 1 and "a" or "b", why) end
    end
  end
  local summary, traffic, runs = {}, {}, {}
  for _, x in ipairs(layouts) do
    local r, why = step.simulate(x.l)
    if r then
      runs[#runs + 1] = {name = step.name(x.l), r = r}
      summary[#summary + 1] = {step.name(x.l), sec(r.step_ms), ("%.1f %%"):format(100 * r.bubble),
                               gib(r.memory.total), r.fits and "yes" or "NO", ("%.0f"):format(r.tokens_per_s),
                               ("%.0f %%"):format(100 * r.mfu), step.busiest_axis(r)}
      for _, row in ipairs(traffic_rows(step.name(x.l), r)) do traffic[#traffic + 1] = row end
    else
      problems[#problems + 1] = ("%s: %s"):format(step.name(x.l), why)
    end
  end
  mgpu.result{table = {title = "Llama-2-70B on 256 H100s (32 DGX nodes), one step, TIMING-ONLY what-if",
                       columns = {"DPxTPxPP", "step s", "bubble", "GiB/GPU", "fits", "tokens/s", "MFU", "busiest axis"},
                       rows = summary}}
  mgpu.result{table = {title = "traffic per rank and step: which collective, how many bytes, over which link",
                       columns = {"layout", "axis", "collective", "bytes/call", "calls", "link", "per call", "per step"},
                       rows = traffic}}
  -- What the questions are checked against: the fastest layout that fits,
  -- and the slowest layout's busiest axis.
  local fastest, slowest
  for _, x in ipairs(runs) do
    if x.r.fits and (not fastest or x.r.step_ms < fastest.r.step_ms) then fastest = x end
    if not slowest or x.r.step_ms > slowest.r.step_ms then slowest = x end
  end
  mgpu.result{derived = {layouts = #runs, fastest = fastest and fastest.name or nil,
                         slowest = slowest and slowest.name or nil,
                         slowest_axis = slowest and step.busiest_axis(slowest.r) or nil,
                         slowest_link = slowest and slowest.r.traffic[step.busiest_axis(slowest.r):lower()].link or nil,
                         note_step_ms = runs[1] and runs[1].r.step_ms or nil,
                         problems = #problems > 0 and table.concat(problems, "; ") or nil}}
end

return step
