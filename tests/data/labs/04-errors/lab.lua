-- tests/data/labs/04-errors/lab.lua - lab errors become verdicts, never crashes.
local function boom() error("the run exploded") end
return {
  title = "Errors",
  steps = {
    { id = "raise", title = "run raises", run = function(lab) boom() end, check = function() return { ok = true } end },
    { id = "escape", title = "reads outside the lab", run = function(lab) return lab.read("../01-basics/lab.lua") end },
    { id = "badverdict", title = "check returns garbage", check = function() return 42 end },
    { id = "loop", title = "an endless loop", run = function(lab) while true do end end },
    { id = "fails", title = "a plain failure", check = function() return { ok = false, msg = "not yet", saw = "1", wanted = "2", where = "here" } end },
  },
}
