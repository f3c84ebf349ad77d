-- checks/traces.lua - checks on what a run left behind: events in a trace
-- or flight record (count), timeline spans (overlap) and a hung run's
-- report (hang_caught). Verdicts as in checks/values.lua; bad input gives a
-- failed verdict that says what was wrong, never a Lua error. Texts a
-- learner reads go through L("format", ...) as in checks/values.lua.

local M = {}

local function verdict(ok, msg, saw, wanted, where)
  return { ok = ok and true or false, msg = msg or "", saw = saw or "",
           wanted = wanted or "", where = where or "" }
end

local function tonum(x)
  if type(x) == "number" then return x end
  if type(x) == "string" then return tonumber((x:gsub("^%s+", ""):gsub("%s+$", ""))) end
  return nil
end

local function isnum(x)
  return type(x) == "number" and x == x and x ~= math.huge and x ~= -math.huge
end

local function fmt(x, unit)
  local s
  if type(x) ~= "number" then s = tostring(x)
  elseif math.type(x) == "integer" or (x == math.floor(x) and math.abs(x) < 1e15) then s = string.format("%.0f", x)
  elseif math.abs(x) >= 100 then s = string.format("%.1f", x)
  elseif math.abs(x) >= 1 then s = string.format("%.2f", x)
  else s = string.format("%.3g", x) end
  if unit then s = s .. " " .. unit end
  return s
end

local function show(v)
  if v == nil then return L("nothing (nil)") end
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

local function args(a, name)
  if type(a) ~= "table" then
    return nil, verdict(false, L("%s: the check got %s instead of a table of arguments", name, show(a)),
                        show(a), L("a table of arguments"), L("the lab's check function"))
  end
  return a
end

local function where(a, default)
  if type(a.where) == "string" and a.where ~= "" then return a.where end
  return default
end

-- The name of an event: a string, or a table's op / name / kind.
local function event_name(e)
  if type(e) == "string" then return e end
  if type(e) == "table" then
    for _, k in ipairs({ "op", "name", "kind", "coll" }) do
      if type(e[k]) == "string" then return e[k] end
    end
  end
  return nil
end

-- checks.count -----------------------------------------------------------

-- {events = {...}, op = "all_reduce", expected = N, what =, where =}:
-- passes when exactly N events are named `op` (compared case-insensitive;
-- an event is a string or a table with op/name/kind). `at_least = true`
-- accepts N or more.
function M.count(a)
  local a_, bad = args(a, "checks.count"); if not a_ then return bad end
  local w = where(a, L("timeline pane / flight record"))
  local op = type(a.op) == "string" and a.op or nil
  local what = (type(a.what) == "string" and a.what ~= "") and a.what or L("calls of %s", tostring(op))
  local expected = tonum(a.expected)
  if not op or op == "" then
    return verdict(false, L("%s: which event to count was not given (op = %s)", what, show(a.op)), "-", L("an op name"), w)
  end
  local wanted = a.at_least and L("at least %s x %s", expected and fmt(expected) or "?", op)
                 or string.format("%s x %s", expected and fmt(expected) or "?", op)
  if not isnum(expected) or expected < 0 then
    return verdict(false, L("%s: the expected count is %s, not a number >= 0", what, show(a.expected)), "-", wanted, w)
  end
  if type(a.events) ~= "table" then
    return verdict(false, L("%s: no events to count (got %s); did the run record a trace?", what, show(a.events)),
                   L("no trace"), wanted, w)
  end
  local n, total, others = 0, 0, {}
  local want = op:lower()
  for _, e in ipairs(a.events) do
    total = total + 1
    local name = event_name(e)
    if name and name:lower() == want then n = n + 1
    elseif name then others[name] = (others[name] or 0) + 1 end
  end
  local ok = a.at_least and n >= expected or n == expected
  local saw = L("%d x %s (of %d events)", n, op, total)
  local rest = {}
  for k, c in pairs(others) do rest[#rest + 1] = k .. " " .. c end
  table.sort(rest)
  local tail = #rest > 0 and L(" Other events: %s.", table.concat(rest, ", ")) or ""
  if ok then return verdict(true, L("%s: %d, as wanted (%s).", what, n, wanted) .. tail, saw, wanted, w) end
  return verdict(false, L("%s: %d, but %s wanted.", what, n, wanted) .. tail, saw, wanted, w)
end

-- checks.overlap ---------------------------------------------------------

-- Merged intervals of the spans matching `name` per rank.
local function intervals(spans, name)
  local per = {}
  local want = name:lower()
  for _, s in ipairs(spans) do
    local nm = event_name(s)
    if type(s) == "table" and nm and nm:lower() == want then
      local t0 = tonum(s.start_us or s.start or s.ts)
      local t1 = tonum(s.end_us or s["end"])
      if t1 == nil and tonum(s.dur) and t0 then t1 = t0 + tonum(s.dur) end
      if isnum(t0) and isnum(t1) and t1 >= t0 then
        local r = tostring(s.rank or 0)
        per[r] = per[r] or {}
        table.insert(per[r], { t0, t1 })
      end
    end
  end
  for r, list in pairs(per) do
    table.sort(list, function(x, y) return x[1] < y[1] end)
    local merged = {}
    for _, iv in ipairs(list) do
      local last = merged[#merged]
      if last and iv[1] <= last[2] then
        if iv[2] > last[2] then last[2] = iv[2] end
      else
        merged[#merged + 1] = { iv[1], iv[2] }
      end
    end
    per[r] = merged
  end
  return per
end

local function length(list)
  local s = 0
  for _, iv in ipairs(list) do s = s + (iv[2] - iv[1]) end
  return s
end

local function intersection(x, y)
  local i, j, s = 1, 1, 0
  while i <= #x and j <= #y do
    local lo, hi = math.max(x[i][1], y[j][1]), math.min(x[i][2], y[j][2])
    if hi > lo then s = s + (hi - lo) end
    if x[i][2] < y[j][2] then i = i + 1 else j = j + 1 end
  end
  return s
end

-- {spans = {{rank, name, start_us, end_us}, ...}, a = "all_reduce",
--  b = "backward", min_fraction = 0.5, where =}: spans named `a` overlap
-- spans named `b` of the same rank for at least min_fraction of a's time.
function M.overlap(a)
  local a_, bad = args(a, "checks.overlap"); if not a_ then return bad end
  local w = where(a, L("timeline pane"))
  local na, nb = a.a, a.b
  local minf = a.min_fraction == nil and 0.5 or tonum(a.min_fraction)
  local what = (type(a.what) == "string" and a.what ~= "") and a.what or
               L("%s overlapping %s", tostring(na), tostring(nb))
  if type(na) ~= "string" or type(nb) ~= "string" then
    return verdict(false, L("%s: the span names to compare were not given (a = %s, b = %s)", what, show(na), show(nb)),
                   "-", L("two span names"), w)
  end
  if not isnum(minf) or minf < 0 or minf > 1 then
    return verdict(false, L("%s: min_fraction %s is not in [0, 1]", what, show(a.min_fraction)), "-", L("a fraction"), w)
  end
  local wanted = L(">= %s %% of %s's time", fmt(minf * 100), na)
  if type(a.spans) ~= "table" then
    return verdict(false, L("%s: no timeline spans (got %s)", what, show(a.spans)), L("no spans"), wanted, w)
  end
  local A, B = intervals(a.spans, na), intervals(a.spans, nb)
  local ta, tov = 0, 0
  for r, la in pairs(A) do
    ta = ta + length(la)
    if B[r] then tov = tov + intersection(la, B[r]) end
  end
  if ta <= 0 then
    return verdict(false, L("%s: no %s spans with a duration on the timeline", what, na), L("0 us of %s", na), wanted, w)
  end
  local f = tov / ta
  local saw = L("%s %% (%s of %s us)", fmt(f * 100), fmt(tov), fmt(ta))
  if f >= minf then
    return verdict(true, L("%s: %s %% of %s's time runs while %s runs (wanted %s)", what, fmt(f * 100), na, nb, wanted),
                   saw, wanted, w)
  end
  return verdict(false, L("%s: only %s %% of %s's time runs while %s runs (wanted %s)", what, fmt(f * 100), na, nb, wanted),
                 saw, wanted, w)
end

-- checks.hang_caught -----------------------------------------------------

local function all_text(report)
  local parts = {}
  local function add(x) if type(x) == "string" then parts[#parts + 1] = x end end
  add(report.reason); add(report.analysis)
  if type(report.ranks) == "table" then
    for _, r in pairs(report.ranks) do
      if type(r) == "table" then
        local e = r.error
        if type(e) == "table" then add(e.message); add(e.code) else add(e) end
      end
    end
  end
  if type(report.errors) == "table" then
    for _, e in ipairs(report.errors) do
      if type(e) == "table" and type(e.error) == "table" then add(e.error.message); add(e.error.code) end
    end
  end
  return table.concat(parts, "\n"):lower()
end

-- How long the hung collective waited before it was ended, from the
-- engine's own clocks: the flight records a failed run sends hold, per
-- rank, when the collective was entered and when it failed; the longest of
-- these is the watchdog's reaction (the rank that came first waited the
-- timeout; the others were aborted with it). Not the run's wall time, which
-- also counts starting the ranks and, on a busy machine, waiting for a CPU.
-- nil when the report has no flight records.
local function waited_s(report)
  local longest
  if type(report.ranks) ~= "table" then return nil end
  for _, rk in pairs(report.ranks) do
    for _, comm in ipairs(type(rk) == "table" and type(rk.flight) == "table" and rk.flight or {}) do
      for _, e in ipairs(type(comm) == "table" and type(comm.entries) == "table" and comm.entries or {}) do
        local t0, t1 = tonum(e.t_enqueue_us), tonum(e.t_end_us)
        if e.state == "failed" and t0 and t1 and t1 >= t0 then
          local w = (t1 - t0) / 1e6
          if not longest or w > longest then longest = w end
        end
      end
    end
  end
  return longest
end

-- checks.hang_waited(report): that time in seconds, or nil (for a lab's
-- tables and its own comparisons).
M.hang_waited = waited_s

-- The timeout the watchdog ended the hang at, from its own sentence ("... did
-- not complete within 2 s: ..."), or nil. The engine's record of its
-- decision: the measured wait (waited_s) is host time, which a busy machine
-- stretches past the timeout when the watchdog's thread waits for a CPU
-- (lab 8 failed under load with "ended after 9.05 s, later than 9 s").
local function watchdog_timeout_s(text)
  local s = text:match("did not complete within ([%d%.]+) s")
  return s and tonumber(s)
end

-- {report = <lab.spmd result>, within = seconds, mismatch = "pattern"
--  (optional), where =}: the run did not finish (it hung), the watchdog
-- ended it (a timeout / abort is named) within `within` seconds of the
-- collective's start - by the timeout its own sentence names, else by the
-- flight records' clocks (waited_s; the run's wall time only when there are
-- no flight records) - and the analyser named the mismatch (report.analysis
-- is not empty, and contains `mismatch` when given).
function M.hang_caught(a)
  local a_, bad = args(a, "checks.hang_caught"); if not a_ then return bad end
  local w = where(a, L("log pane: the watchdog's message and the flight recorder's analysis"))
  local within = tonum(a.within)
  local r = a.report
  local wanted = L("ended by the watchdog within %s, mismatch named", within and fmt(within, "s") or "?")
  if not isnum(within) or within <= 0 then
    return verdict(false, L("hang_caught: `within` is %s, not a number of seconds", show(a.within)), "-", wanted, w)
  end
  if type(r) ~= "table" then
    return verdict(false, L("hang_caught: no run report (got %s)", show(r)), L("no report"), wanted, w)
  end
  if r.ok == true then
    return verdict(false, L("hang_caught: the run finished normally - nothing hung, so there was nothing to catch"),
                   L("the run completed"), wanted, w)
  end
  local secs = waited_s(r) or tonum(r.wall_s) or tonum(r.seconds) or tonum(r.elapsed_s)
  local text = all_text(r)
  local by_watchdog = text:find("timeout", 1, true) or text:find("timed out", 1, true) or
                      text:find("did not complete within", 1, true) or text:find("watchdog", 1, true) or
                      text:find("abort", 1, true)
  local analysis = type(r.analysis) == "string" and r.analysis or ""
  local saw = string.format("%s, %s", secs and L("ended after %s", fmt(secs, "s")) or L("no duration in the report"),
                            analysis ~= "" and L("analysis: %s", analysis) or L("no analysis"))
  if not by_watchdog then
    return verdict(false, L("hang_caught: the run failed, but not by a timeout or abort: %s", tostring(r.reason or "?")),
                   saw, wanted, w)
  end
  local decided = watchdog_timeout_s(text)
  if not decided and not secs then
    return verdict(false, L("hang_caught: the report does not say how long the run took"), saw, wanted, w)
  end
  if (decided or secs) > within then
    return verdict(false, L("hang_caught: the hang was ended after %s, later than %s", fmt(decided or secs, "s"),
                            fmt(within, "s")), saw, wanted, w)
  end
  secs = secs or decided
  if analysis == "" then
    return verdict(false, L("hang_caught: the watchdog ended the run but no analysis named the mismatch"), saw, wanted, w)
  end
  if type(a.mismatch) == "string" and a.mismatch ~= "" and not analysis:lower():find(a.mismatch:lower(), 1, true) then
    return verdict(false, L("hang_caught: the analysis does not name %s: %s", a.mismatch, analysis), saw, wanted, w)
  end
  return verdict(true, L("hang_caught: the watchdog ended the hang after %s (limit %s) and named it: %s",
                 fmt(secs, "s"), fmt(within, "s"), analysis), saw, wanted, w)
end

-- checks.no_race -------------------------------------------------------

-- {report = <lab.spmd result>, what =, where =}: the run's race detector
-- found no stream-ordering race (report.races empty). A race the step did
-- not expect fails it anyway (the framework adds that verdict); this is for
-- a run made with races = "expected" whose fixed half must be clean, or to
-- say which run raced.
function M.no_race(a)
  local a_, bad = args(a, "checks.no_race"); if not a_ then return bad end
  local w = where(a, L("log pane (5): the RACE lines"))
  local what = type(a.what) == "string" and a.what or L("the run")
  local r = a.report
  if type(r) ~= "table" then
    return verdict(false, L("no_race: no run report (got %s)", show(r)), L("no report"), L("no race"), w)
  end
  local races = type(r.races) == "table" and r.races or {}
  if #races == 0 then
    return verdict(true, L("%s: no stream-ordering race", what), L("no race"), L("no race"), w)
  end
  local first = type(races[1]) == "table" and races[1] or {}
  return verdict(false, #races == 1 and L("%s: 1 stream-ordering race; the first: %s", what, tostring(first.text or "?"))
                        or L("%s: %d stream-ordering races; the first: %s", what, #races, tostring(first.text or "?")),
                 string.format("rank %s: %s", tostring(first.rank or "?"), tostring(first.text or "?")), L("no race"), w)
end

return M
