-- tests/data/labs/checks/basic.lua - a tiny check library for the lab
-- framework's tests (the real one is checks/ at the top of the tree).
local M = {}
function M.equals(a)
  if a.answer and a.value == nil then -- a question not answered yet: it waits, as in checks/values.lua
    return { ok = false, unanswered = true, msg = (a.what or "value") .. ": not answered yet",
             saw = "no answer yet", wanted = "your answer", where = a.where or "" }
  end
  local ok = tostring(a.value) == tostring(a.expected)
  return { ok = ok, msg = (a.what or "value") .. (ok and " is right" or " is wrong"),
           saw = tostring(a.value), wanted = tostring(a.expected), where = a.where or "" }
end
return M
