-- checks/values.lua - checks on numbers and values: bandwidth, close,
-- equals, identical, all. Every check returns a verdict
--   {ok = bool, msg = "...", saw = "...", wanted = "...", where = "..."}
-- (docs/lab-authoring.md) and never raises on bad input: a nil, a string
-- where a number belongs, a NaN or a missing table gives a failed verdict
-- that says what was wrong with the input.
--
-- Every text a learner reads goes through L("format", ...) (the lab
-- framework's global: the Korean of checks/lang/ko.lua in Korean, the format
-- itself in English); called only inside the checks, at check time.

local M = {}

-- helpers (local: each check file is loaded on its own) ------------------

local function verdict(ok, msg, saw, wanted, where)
  return { ok = ok and true or false, msg = msg or "", saw = saw or "",
           wanted = wanted or "", where = where or "" }
end

local function isnum(x)
  return type(x) == "number" and x == x and x ~= math.huge and x ~= -math.huge
end

-- A number from a number or a numeric string ("450", " 3.5 GB/s" is not one).
local function tonum(x)
  if type(x) == "number" then return x end
  if type(x) == "string" then return tonumber((x:gsub("^%s+", ""):gsub("%s+$", ""))) end
  return nil
end

-- 374.39, 0.00138, 1.2e+09 -> short, readable, no exponent for everyday sizes
local function fmt(x, unit)
  local s
  if type(x) ~= "number" then s = tostring(x)
  elseif x ~= x then s = "NaN"
  elseif math.type(x) == "integer" then s = string.format("%d", x)
  elseif x == math.floor(x) and math.abs(x) < 1e15 then s = string.format("%.0f", x)
  elseif math.abs(x) >= 1 then s = string.format("%.2f", x)
  elseif x == 0 then s = "0"
  else s = string.format("%.3g", x) end
  if unit and unit ~= "" then s = s .. " " .. unit end
  return s
end

-- A value shown to a learner: strings quoted, tables summarised.
-- A percentage: 83.2, 100, 8.89 -> "83.2", "100", "8.9"
local function pctf(x)
  if x == math.floor(x) then return string.format("%.0f", x) end
  return string.format("%.1f", x)
end

local function show(v)
  if v == nil then return L("nothing (nil)") end
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "number" then return fmt(v) end
  if type(v) == "table" then
    local n = 0
    for _ in pairs(v) do n = n + 1 end
    return L("a table of %d entries", n)
  end
  return tostring(v)
end

local function arg_table(a, name)
  if type(a) ~= "table" then
    return nil, verdict(false, L("%s: the check got %s instead of a table of arguments", name, show(a)),
                        show(a), L("a table such as %s{value = ..., ...}", name), L("the lab's check function"))
  end
  return a
end

local function label(a, default)
  if type(a.what) == "string" and a.what ~= "" then return a.what end
  return default
end

local function where(a, default)
  if type(a.where) == "string" and a.where ~= "" then return a.where end
  return default or L("results pane")
end

-- A learner's answer to a question (`answer = true`): the verdict never
-- shows the expected value, answered or not - it says where to look, so the
-- learner reads the machine rather than the check. The reply to a right
-- answer may show it (the learner gave it).
-- It is not a failure either: `unanswered = true` lets checks.all and the
-- framework say the step waits for the learner's answers (state
-- "awaiting") instead of FAIL.
local function unanswered(what, w)
  -- how to answer (the shell's a key, headless --answer ID=VALUE) is the
  -- front end's to say: the same verdict is shown by both
  local v = verdict(false, L("%s: not answered yet", what), L("no answer yet"), L("your reading of %s", w), w)
  v.unanswered = true
  v.asked = what -- checks.all lists the open questions by it
  return v
end

-- The question a judged answer belongs to: the one whose answer the check
-- read last (lab.answer, just before building this verdict). The engine
-- keeps it as the verdict's `question`, so a class report can count each
-- question's right and wrong answers. nil outside a lab's check.
local function tag_question(v)
  local c = checks
  local asked = type(c) == "table" and c._asked
  if type(asked) == "function" then v.question = asked() end
  return v
end

local function trim_lower(s)
  return (s:gsub("^%s+", ""):gsub("%s+$", "")):lower()
end

-- checks.bandwidth -------------------------------------------------------

-- {value =, peak =, fraction = 0.8, what =, where =, unit = "GB/s", peak_what =}
-- passes when value >= fraction x peak.
function M.bandwidth(a)
  local a_, bad = arg_table(a, "checks.bandwidth"); if not a_ then return bad end
  local what, unit = label(a, L("bandwidth")), (type(a.unit) == "string" and a.unit) or "GB/s"
  local w = where(a)
  local value, peak = tonum(a.value), tonum(a.peak)
  local fraction = a.fraction == nil and 0.8 or tonum(a.fraction)
  if not isnum(fraction) or fraction <= 0 or fraction > 100 then
    return verdict(false, L("%s: the fraction of peak to reach is %s, not a number in (0, 100]", what, show(a.fraction)),
                   show(a.fraction), L("a fraction such as 0.8"), w)
  end
  local peak_name = (type(a.peak_what) == "string" and a.peak_what ~= "") and L(" of %s", a.peak_what) or ""
  if not isnum(peak) or peak <= 0 then
    return verdict(false, L("%s: no usable peak%s to compare with (got %s)", what, peak_name, show(a.peak)),
                   show(a.value), L("a peak > 0 %s", unit), w)
  end
  local need = fraction * peak
  local wanted = L(">= %s (%s %% of %s%s)", fmt(need, unit), pctf(fraction * 100), fmt(peak, unit), peak_name)
  if unit == "%" then wanted = ">= " .. pctf(need) .. " %" end
  if not isnum(value) then
    return verdict(false, L("%s: no measured value (got %s)", what, show(a.value)), show(a.value), wanted, w)
  end
  if value < 0 then
    return verdict(false, L("%s: a negative bandwidth (%s) is not a measurement", what, fmt(value, unit)),
                   fmt(value, unit), wanted, w)
  end
  local pct = value / peak * 100
  if fraction > 1 then
    -- a speedup over a baseline, not a share of a peak: say it as a factor
    local x = value / peak
    local base = L("the %s%s", fmt(peak, unit), peak_name)
    local saw_x = string.format("%s (%.2fx %s)", fmt(value, unit), x, fmt(peak, unit))
    local wanted_x = L(">= %s (%.2fx %s)", fmt(need, unit), fraction, base)
    if value >= need then
      return verdict(true, L("%s: %s is %.2fx %s (wanted at least %.2fx)", what, fmt(value, unit), x, base, fraction),
                     saw_x, wanted_x, w)
    end
    return verdict(false, L("%s: %s is only %.2fx %s; wanted at least %.2fx (%s)", what, fmt(value, unit),
                            x, base, fraction, fmt(need, unit)), saw_x, wanted_x, w)
  end
  if unit == "%" then
    -- a share already (time hidden, overlap): "39.8 % of the 100 % peak" said nothing
    local saw_p, bar = pctf(value) .. " %", pctf(need) .. " %"
    if value >= need then
      return verdict(true, L("%s: %s; the bar is %s", what, saw_p, bar), saw_p, wanted, w)
    end
    return verdict(false, L("%s: only %s; the bar is %s", what, saw_p, bar), saw_p, wanted, w)
  end
  local saw = L("%s (%s %% of peak)", fmt(value, unit), pctf(pct))
  if value >= need then
    return verdict(true, L("%s: %s reaches %s %% of the %s peak%s (wanted at least %s %%)",
                   what, fmt(value, unit), pctf(pct), fmt(peak, unit), peak_name, pctf(fraction * 100)), saw, wanted, w)
  end
  return verdict(false, L("%s: %s is only %s %% of the %s peak%s; wanted at least %s %% (%s)",
                 what, fmt(value, unit), pctf(pct), fmt(peak, unit), peak_name, pctf(fraction * 100), fmt(need, unit)),
                 saw, wanted, w)
end

-- checks.close -----------------------------------------------------------

-- {value =, expected =, rtol = 1e-6, atol = 0, what =, where =, unit =, labels =, answer =}
-- passes when |value - expected| <= atol + rtol x |expected|. value and
-- expected may both be lists of numbers (same length): every element must
-- be close; the verdict names the worst one (labels[i] names element i).
function M.close(a)
  local a_, bad = arg_table(a, "checks.close"); if not a_ then return bad end
  local what, w = label(a, L("value")), where(a)
  local unit = type(a.unit) == "string" and a.unit or nil
  local rtol = a.rtol == nil and 1e-6 or tonum(a.rtol)
  local atol = a.atol == nil and 0 or tonum(a.atol)
  if not isnum(rtol) or rtol < 0 or not isnum(atol) or atol < 0 then
    return verdict(false, L("%s: tolerances must be numbers >= 0 (rtol %s, atol %s)", what, show(a.rtol), show(a.atol)),
                   show(a.value), L("valid tolerances"), w)
  end
  local function tol_text(e)
    local parts = {}
    if rtol > 0 then parts[#parts + 1] = fmt(rtol * 100) .. " %" end
    if atol > 0 then parts[#parts + 1] = fmt(atol, unit) end
    return fmt(e, unit) .. (#parts > 0 and (" +/- " .. table.concat(parts, " + ")) or L(" exactly"))
  end
  local function one(v, e)
    local vn, en = tonum(v), tonum(e)
    if not isnum(en) then return false, math.huge, L("no expected number (%s)", show(e)) end
    if not isnum(vn) then return false, math.huge, L("no number (%s)", show(v)) end
    local err = math.abs(vn - en)
    return err <= atol + rtol * math.abs(en), err
  end
  if type(a.expected) == "table" then
    local ve, ee = a.value, a.expected
    if type(ve) ~= "table" then
      return verdict(false, L("%s: expected a list of %d numbers, got %s", what, #ee, show(ve)),
                     show(ve), L("%d numbers", #ee), w)
    end
    if #ee == 0 then
      return verdict(false, L("%s: nothing to compare (the expected list is empty)", what), show(ve),
                     L("at least one value"), w)
    end
    if #ve ~= #ee then
      return verdict(false, L("%s: %d values, but %d were expected", what, #ve, #ee),
                     L("%d values", #ve), L("%d values", #ee), w)
    end
    local nbad, worst, worst_i, worst_why = 0, -1, nil, nil
    for i = 1, #ee do
      local ok, err, why = one(ve[i], ee[i])
      if not ok then
        nbad = nbad + 1
        if nbad == 1 or err > worst then worst, worst_i, worst_why = err, i, why end
      elseif nbad == 0 and err > worst then
        worst, worst_i = err, i
      end
    end
    local name = function(i) return (type(a.labels) == "table" and a.labels[i]) and tostring(a.labels[i]) or ("#" .. i) end
    local i = worst_i or 1
    local saw = L("%s at %s", worst_why or fmt(tonum(ve[i]), unit), name(i))
    local wanted = L("%s at %s", tol_text(tonum(ee[i]) or 0), name(i))
    if nbad == 0 then
      return verdict(true, L("%s: all %d values match (largest difference %s, at %s)",
                     what, #ee, fmt(worst, unit), name(i)), saw, wanted, w)
    end
    return verdict(false, L("%s: %d of %d values are off; the worst is %s where %s was expected%s",
                   what, nbad, #ee, name(i), fmt(tonum(ee[i]), unit),
                   worst_why and (": " .. worst_why) or L(", got %s", fmt(tonum(ve[i]), unit))), saw, wanted, w)
  end
  if a.answer and type(a.expected) ~= "table" then
    if a.value == nil then return unanswered(what, w) end
    local ok, err, why = one(a.value, a.expected)
    local en = tonum(a.expected)
    local tol = rtol > 0 and (fmt(rtol * 100) .. " %") or fmt(atol, unit)
    local wanted = L("within %s of the value in %s", tol, w)
    if why then return tag_question(verdict(false, what .. ": " .. why, show(a.value), wanted, w)) end
    if ok then
      return tag_question(verdict(true, L("%s: %s is right (within %s)", what, fmt(tonum(a.value), unit), tol),
                     fmt(tonum(a.value), unit), wanted, w))
    end
    local dir = tonum(a.value) > en and L("too high") or L("too low")
    if err > 0.5 * math.abs(en) then dir = tonum(a.value) > en and L("too high by far") or L("too low by far") end
    return tag_question(verdict(false, L("%s: %s is %s (more than %s off) - look again at %s", what,
                   fmt(tonum(a.value), unit), dir, tol, w), fmt(tonum(a.value), unit), wanted, w))
  end
  if a.value == nil and type(a.missing) == "string" then
    local en = tonum(a.expected)
    return verdict(false, L("%s: no value yet - %s", what, a.missing), L("nothing (nil)"),
                   isnum(en) and tol_text(en) or L("a number"), w)
  end
  local ok, err, why = one(a.value, a.expected)
  local en = tonum(a.expected)
  local saw = why and show(a.value) or fmt(tonum(a.value), unit)
  local wanted = isnum(en) and tol_text(en) or L("a number (the lab gave %s)", show(a.expected))
  if why then return verdict(false, what .. ": " .. why, saw, wanted, w) end
  if ok then
    return verdict(true, L("%s: %s matches %s", what, fmt(tonum(a.value), unit), tol_text(en)), saw, wanted, w)
  end
  return verdict(false, L("%s: %s is off by %s from %s", what, fmt(tonum(a.value), unit), fmt(err, unit),
                 tol_text(en)), saw, wanted, w)
end

-- checks.equals ----------------------------------------------------------

local function same(v, e)
  if type(v) == "string" and type(e) == "string" then return trim_lower(v) == trim_lower(e) end
  if type(v) == "number" or type(e) == "number" then
    local vn, en = tonum(v), tonum(e)
    return vn ~= nil and en ~= nil and vn == en
  end
  if type(v) == "boolean" and type(e) == "string" then return trim_lower(e) == tostring(v) end
  if type(e) == "boolean" and type(v) == "string" then
    local s = trim_lower(v)
    -- a Korean learner may answer in Korean: 예 / 네, 아니오 / 아니요
    if e then return s == "true" or s == "yes" or s == "y" or s == "예" or s == "네" end
    return s == "false" or s == "no" or s == "n" or s == "아니오" or s == "아니요"
  end
  return v == e
end

-- {value =, expected =, what =, where =, answer =}: value == expected. Strings are
-- compared trimmed and case-insensitive; a number and a numeric string by
-- value; a boolean and "yes"/"no". `expected` may be a list {any = {...}}
-- of acceptable values.
function M.equals(a)
  local a_, bad = arg_table(a, "checks.equals"); if not a_ then return bad end
  local what, w = label(a, L("value")), where(a)
  local choices
  if type(a.expected) == "table" and type(a.expected.any) == "table" then
    choices = a.expected.any
    if #choices == 0 then
      return verdict(false, L("%s: the lab gave no acceptable value", what), show(a.value), L("(nothing)"), w)
    end
  end
  local wanted
  if choices then
    local t = {}
    for i, c in ipairs(choices) do t[i] = show(c) end
    wanted = L("one of %s", table.concat(t, ", "))
  elseif type(a.expected) == "boolean" then
    wanted = a.expected and L("yes") or L("no")
  else
    wanted = show(a.expected)
  end
  if a.expected == nil then
    return verdict(false, L("%s: the lab could not work out the expected value", what), show(a.value), L("(unknown)"), w)
  end
  if a.answer then
    if a.value == nil then return unanswered(what, w) end
    -- `where` may be "results pane (3): the gradient size": "what ... shows" around it did not read
    wanted = L("the value shown in %s", w)
  end
  if a.value == nil then
    return verdict(false, a.missing and L("%s: no value yet - %s", what, a.missing) or L("%s: no value yet", what),
                   L("nothing (nil)"), wanted, w)
  end
  local ok = false
  for _, c in ipairs(choices or { a.expected }) do
    if same(a.value, c) then ok = true break end
  end
  if a.answer and not ok then
    return tag_question(verdict(false, L("%s: %s is not right - look again at %s", what, show(a.value), w),
                                show(a.value), wanted, w))
  end
  if ok then
    local v = verdict(true, L("%s: %s is right", what, show(a.value)), show(a.value), wanted, w)
    return a.answer and tag_question(v) or v
  end
  return verdict(false, L("%s: %s is not %s", what, show(a.value), wanted), show(a.value), wanted, w)
end

-- checks.identical -------------------------------------------------------

local function deep_equal(x, y, depth)
  if x == y then return true end
  if type(x) ~= "table" or type(y) ~= "table" or depth > 20 then return false end
  for k, v in pairs(x) do if not deep_equal(v, y[k], depth + 1) then return false end end
  for k in pairs(y) do if x[k] == nil then return false end end
  return true
end

-- {values = {[rank] = v, ...}, ranks = N (optional: every rank 0..N-1 must
-- be there), what =, where =}: every rank has the same value.
function M.identical(a)
  local a_, bad = arg_table(a, "checks.identical"); if not a_ then return bad end
  local what, w = label(a, L("value")), where(a, L("results pane, one row per rank"))
  if type(a.values) ~= "table" then
    return verdict(false, L("%s: no values from the ranks (got %s)", what, show(a.values)), show(a.values),
                   L("one value per rank"), w)
  end
  local keys = {}
  for k in pairs(a.values) do keys[#keys + 1] = k end
  table.sort(keys, function(x, y)
    if type(x) == type(y) and (type(x) == "number" or type(x) == "string") then return x < y end
    return type(x) < type(y)
  end)
  local n = tonum(a.ranks)
  if n then
    local missing = {}
    for r = 0, math.floor(n) - 1 do if a.values[r] == nil then missing[#missing + 1] = tostring(r) end end
    if #missing > 0 then
      return verdict(false, L("%s: %d of %d ranks gave no value (rank %s)", what, #missing, math.floor(n),
                     table.concat(missing, ", ")), L("%d values", #keys), L("%d equal values", math.floor(n)), w)
    end
  end
  if #keys == 0 then
    return verdict(false, L("%s: no rank gave a value", what), L("%d values", 0), L("one value per rank"), w)
  end
  if #keys == 1 and not n then
    return verdict(false, L("%s: only one value, nothing to compare it with", what), L("1 value"), L("2 or more ranks"), w)
  end
  -- group the keys by value; the largest group is "the" value
  local groups = {}
  for _, k in ipairs(keys) do
    local v, placed = a.values[k], false
    for _, g in ipairs(groups) do
      if deep_equal(g.value, v, 0) then g.keys[#g.keys + 1] = tostring(k); placed = true break end
    end
    if not placed then groups[#groups + 1] = { value = v, keys = { tostring(k) } } end
  end
  table.sort(groups, function(x, y) return #x.keys > #y.keys end)
  if #groups == 1 then
    return verdict(true, L("%s: all %d ranks agree (%s)", what, #keys, show(groups[1].value)),
                   L("%s on every rank", show(groups[1].value)), L("the same value on every rank"), w)
  end
  local parts = {}
  for i, g in ipairs(groups) do
    if i > 4 then parts[#parts + 1] = "..." break end
    parts[#parts + 1] = string.format("rank %s: %s", table.concat(g.keys, ","), show(g.value))
  end
  return verdict(false, L("%s: the ranks disagree - %d different values (%s)", what, #groups,
                 table.concat(parts, "; ")), table.concat(parts, "; "), L("the same value on every rank"), w)
end

-- checks.all -------------------------------------------------------------

-- {v1, v2, ...} (or checks.all(v1, v2, ...)): one verdict that passes when
-- every verdict passed; saw/wanted/where come from the first failure.
function M.all(a, ...)
  local list
  if select("#", ...) > 0 then list = { a, ... }
  elseif type(a) == "table" and a.ok == nil then list = a
  else list = { a } end
  local n = 0
  for k in pairs(list) do if type(k) == "number" and k > n then n = k end end
  if n == 0 then
    return verdict(false, L("checks.all: no verdicts to combine"), L("0 verdicts"), L("at least one verdict"),
                   L("the lab's check function"))
  end
  -- an unanswered question is not a failure: the step waits for answers
  local failed, fmsgs, pmsgs, waiting, wmsgs = {}, {}, {}, {}, {}
  local judged = {} -- the questions judged inside, kept for the report
  for i = 1, n do
    local v = list[i]
    if type(v) ~= "table" or type(v.ok) ~= "boolean" then
      v = verdict(false, L("verdict %d is %s, not a verdict", i, show(v)), show(v), L("a verdict table"),
                  L("the lab's check function"))
    end
    if type(v.question) == "string" then judged[#judged + 1] = { question = v.question, ok = v.ok } end
    if type(v.judged) == "table" then
      for _, j in ipairs(v.judged) do judged[#judged + 1] = j end
    end
    if v.ok then pmsgs[#pmsgs + 1] = tostring(v.msg or "")
    elseif v.unanswered == true then
      waiting[#waiting + 1] = v
      wmsgs[#wmsgs + 1] = type(v.asked) == "string" and v.asked or (tostring(v.msg or ""):gsub(": not answered yet.*$", ""))
    else failed[#failed + 1] = v; fmsgs[#fmsgs + 1] = tostring(v.msg or "") end
  end
  -- cut at a character, not inside one (a Korean message is 3 bytes a letter)
  local function cut(s)
    if #s <= 900 then return s end
    local n = 897
    while n > 1 and (s:byte(n + 1) or 0) >= 0x80 and (s:byte(n + 1) or 0) < 0xC0 do n = n - 1 end
    return s:sub(1, n) .. "..."
  end
  -- said before the failures, which a long list would cut
  local wait_note = #waiting == 0 and "" or
    (#waiting == 1 and L(" (1 question waits for your answer)") or L(" (%d questions wait for your answers)", #waiting))
  local function with_judged(v)
    if #judged > 0 then v.judged = judged end
    return v
  end
  if #failed > 0 then
    local f = failed[1]
    return with_judged(verdict(false, cut(L("%d of %d checks failed%s: %s", #failed, n - #waiting, wait_note,
                   table.concat(fmsgs, "; "))), f.saw, f.wanted, f.where))
  end
  if #waiting > 0 then
    local w = waiting[1]
    local v = verdict(false, cut(#waiting == 1 and L("1 question not answered yet: %s", table.concat(wmsgs, "; "))
                                 or L("%d questions not answered yet: %s", #waiting, table.concat(wmsgs, "; "))),
                      w.saw, w.wanted, w.where)
    v.unanswered = true
    return with_judged(v)
  end
  local last = list[n]
  return with_judged(verdict(true, cut(L("all %d checks passed: %s", n, table.concat(pmsgs, "; "))),
                 last.saw, last.wanted, last.where))
end

return M
