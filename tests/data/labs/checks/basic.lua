-- tests/data/labs/checks/basic.lua - a tiny check library for the lab
-- framework's tests (the real one is checks/ at the top of the tree).
local M = {}
function M.equals(a)
  local ok = tostring(a.value) == tostring(a.expected)
  return { ok = ok, msg = (a.what or "value") .. (ok and " is right" or " is wrong"),
           saw = tostring(a.value), wanted = tostring(a.expected), where = a.where or "" }
end
return M
