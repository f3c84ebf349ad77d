-- exercise-cases/good: an exercise whose check fails unsolved and passes
-- solved, and a question answered in solutions/answers-dgx-h100.txt.
return {
  title = "Sum",
  steps = {
    { id = "sum", title = "Write sum.lua", exercise = "sum.lua",
      run = function(lab) return lab.load(lab.exercise) end,
      check = function(lab, f) return checks.equals{ value = f(2, 3), expected = 5, what = "sum(2, 3)" } end },
    { id = "sky", title = "A question", questions = { { id = "color", ask = "Sky?" } },
      check = function(lab) return checks.equals{ value = lab.answer("color"), expected = "blue", what = "colour", answer = true } end },
  },
}
