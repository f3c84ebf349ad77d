-- exercise-cases/bad: a check that passes the unsolved exercise (the test
-- suite must catch it).
return {
  title = "Lenient",
  steps = {
    { id = "sum", title = "Write sum.lua", exercise = "sum.lua",
      run = function(lab) return lab.load(lab.exercise) end,
      check = function(lab, f) return checks.equals{ value = type(f), expected = "function", what = "sum" } end },
  },
}
