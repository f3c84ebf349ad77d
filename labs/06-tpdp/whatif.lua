-- labs/06-tpdp/whatif.lua - lab 6's "what-if at scale" step, the lab side:
-- run and check functions that lab.lua's step calls (lab.lua cannot import
-- labs/lib, so the rank side is labs/lib/whatif/step.lua, run through
-- scripts/whatif.lua on one rank, and this file is loaded with lab.load).
-- lab.lua's step "whatif" calls run and check; its answers for the tests are in
-- solutions/answers-2x-dgx-h100.txt.
local M = {}

local function derived_of(res)
  local rk = res and res.ranks and res.ranks[0]
  for _, row in ipairs(rk and rk.results or {}) do
    if row.derived then return row.derived end
  end
end

function M.run(lab)
  lab.progress(0, L("simulating Llama-2-70B on 256 H100s in one process (timing-only)"))
  local res = lab.spmd("scripts/whatif.lua", { ranks = 1, timeout = 60,
                                               args = { lab.answer("layout_a") or "", lab.answer("layout_b") or "" } })
  -- the layouts this run simulated: an answer given after it needs a new run
  res.layouts_run = { lab.answer("layout_a") or "", lab.answer("layout_b") or "" }
  local rk = res and res.ranks and res.ranks[0]
  for _, row in ipairs(rk and rk.results or {}) do
    if row.table then lab.table(row.table) end
  end
  local d = derived_of(res)
  if d and d.note_step_ms then lab.record("whatif_note_step_ms", d.note_step_ms) end
  if d and d.problems then lab.log(d.problems) end
  return res
end

-- "16 x 4 x 4", "16*4*4" -> "16x4x4"
local function layout_key(s)
  if type(s) ~= "string" then return nil end
  return (s:lower():gsub("%s+", ""):gsub("%*", "x"))
end

-- "tp over infiniband", "TP, IB" -> "TP InfiniBand"; nil when no axis or link
local function why_key(s)
  if type(s) ~= "string" then return nil end
  local l = " " .. s:lower():gsub("[^%w]+", " ") .. " "
  local axis = l:match(" (tp) ") or l:match(" (pp) ") or l:match(" (dp) ")
  local link = (l:match(" nvlink ") or l:match(" nvswitch ")) and "NVLink"
            or (l:match(" infiniband ") or l:match(" ib ") or l:match(" network ")) and "InfiniBand" or nil
  if not axis then return s end
  return axis:upper() .. " " .. (link or "?")
end

function M.check(lab, res)
  local where = L("results pane: the two what-if tables")
  if not (res and res.ok) then
    return { ok = false, msg = L("the what-if did not finish: %s", tostring(res and res.reason)), saw = tostring(res and res.reason),
             wanted = L("one rank finishes"), where = L("log pane (5)") }
  end
  local d = derived_of(res)
  if not d then
    return { ok = false, msg = L("the what-if returned no summary"), saw = L("nothing"), wanted = L("its summary row"),
             where = L("log pane (5)") }
  end
  -- Unanswered layouts are questions that wait, not a failure; so are the
  -- questions about the three layouts until all three are in the tables.
  local function waits(id, what, w)
    return checks.equals{ value = lab.answer(id), expected = "-", answer = true, what = what, where = w }
  end
  local pick = L("the step text, 'What to do' 2: DPxTPxPP, the product 256")
  if not lab.answer("layout_a") or not lab.answer("layout_b") then
    local v = {}
    if not lab.answer("layout_a") then v[#v + 1] = waits("layout_a", L("your first layout of the 256 GPUs"), pick) end
    if not lab.answer("layout_b") then v[#v + 1] = waits("layout_b", L("your second layout"), pick) end
    if not lab.answer("fastest") then v[#v + 1] = waits("fastest", L("the fastest layout that fits"), where) end
    if not lab.answer("why") then v[#v + 1] = waits("why", L("the slowest layout's costliest axis and its link"), where) end
    return checks.all(v)
  end
  local ran = res.layouts_run or {}
  if ran[1] ~= lab.answer("layout_a") or ran[2] ~= lab.answer("layout_b") then
    -- answered after the run: the tables do not hold them yet
    local v = { ok = false, unanswered = true,
                msg = L("your layouts: run the step again (r) to simulate them - the tables show the layouts of the last run"),
                saw = L("%d layout(s) in the tables", d.layouts), wanted = L("your two layouts in the tables"),
                where = L("r runs the step again") }
    return v
  end
  if d.problems or d.layouts < 3 then
    return { ok = false, msg = L("a layout could not be simulated: %s", tostring(d.problems)),
             saw = tostring(d.problems), wanted = L("two layouts of 256 GPUs the model can split"), where = L("log pane (5)") }
  end
  local same = layout_key(lab.answer("layout_a")) == layout_key(lab.answer("layout_b"))
                or layout_key(lab.answer("layout_a")) == "8x8x4" or layout_key(lab.answer("layout_b")) == "8x8x4"
  if same then
    return { ok = false, msg = L("the layouts must differ from each other and from the note's 8x8x4"),
             saw = tostring(lab.answer("layout_a")) .. ", " .. tostring(lab.answer("layout_b")),
             wanted = L("two new layouts"), where = L("press a to answer layout_a and layout_b") }
  end
  return checks.all{
    checks.equals{ value = layout_key(lab.answer("fastest")), expected = d.fastest, answer = true,
                   what = L("the fastest layout that fits"), where = L("%s (step s, fits)", where) },
    checks.equals{ value = why_key(lab.answer("why")), expected = d.slowest_axis .. " " .. d.slowest_link, answer = true,
                   what = L("the slowest layout's costliest axis and its link"), where = L("%s (per step, link)", where) },
  }
end

return M
