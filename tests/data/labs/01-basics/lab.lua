-- tests/data/labs/01-basics/lab.lua - the framework without the engine:
-- a reading step, a question, an exercise, a list of verdicts.
return {
  title = "Basics", summary = "framework test lab", backends = "any",
  steps = {
    { id = "read", title = "A reading step", text = "steps/01-read.md", hints = { "just read" } },
    {
      id = "question", title = "Answer a question",
      hints = { "first hint", "second hint" },
      questions = { { id = "color", ask = "Which colour is the sky?" } },
      run = function(lab) lab.log("asking"); return { expected = "blue" } end,
      check = function(lab, res)
        lab.record("answer", lab.answer("color") or "none")
        return checks.equals{ value = lab.answer("color"), expected = res.expected, what = "colour",
                              where = "look up" }
      end,
    },
    {
      id = "exercise", title = "Write sum.lua", exercise = "sum.lua",
      run = function(lab) return lab.load(lab.exercise) end,
      check = function(lab, f)
        lab.record("sum", f(2, 3))
        return checks.equals{ value = f(2, 3), expected = 5, what = "sum(2, 3)", where = "sum.lua" }
      end,
    },
    {
      id = "list", title = "A list of verdicts",
      run = function(lab) print("printed"); return lab.read("steps/01-read.md") end,
      check = function(lab, text)
        return { checks.truthy{ value = text:find("Reading step"), what = "the text" },
                 checks.equals{ value = lab.measured("basics", "exercise", "sum") ~= nil, expected = true,
                                what = "a measurement of step 3" } }
      end,
    },
  },
}
