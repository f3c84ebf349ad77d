-- A small lab for the shell's tests (tests/shell/*.sh): a reading step, a
-- question, a quick benchmark, an exercise and a long benchmark to cancel.
return {
  title    = "Shell test lab",
  summary  = "Steps that exercise the shell: read, answer, bench, edit, cancel",
  backends = "sim and cuda",
  ranks    = 2,
  steps = {
    {
      id = "read", title = "Read this",
      text = "steps/01-read.md",
    },
    {
      id = "answer", title = "Answer a question",
      text = "steps/02-answer.md",
      hints = { "The sky on a clear day.", "It starts with b." },
      questions = { { id = "colour", ask = "What colour is the sky on a clear day?" } },
      check = function(lab)
        local a = lab.answer("colour") or ""
        return { ok = a:lower() == "blue", msg = "the answer to the colour question",
                 saw = a, wanted = "blue", where = "press a to answer" }
      end,
    },
    {
      id = "bench", title = "A quick all-reduce",
      text = "steps/03-bench.md",
      run = function(lab)
        return lab.bench("all_reduce", { b = "8", e = "64K", f = 4, n = 2, w = 1 })
      end,
      check = function(lab, res)
        return { ok = res ~= nil, msg = "the benchmark ran", saw = res and "a result" or "nothing",
                 wanted = "a result", where = "results pane" }
      end,
    },
    {
      id = "exercise", title = "Edit the exercise",
      text = "steps/04-exercise.md",
      exercise = "answer.lua",
      check = function(lab)
        local v = lab.load(lab.exercise)
        return { ok = v == 42, msg = "the exercise returns the answer",
                 saw = tostring(v), wanted = "42", where = lab.exercise }
      end,
    },
    {
      id = "long", title = "A long benchmark",
      text = "steps/05-long.md",
      run = function(lab)
        return lab.bench("all_reduce", { b = "8", e = "8", n = 1000000, w = 1 })
      end,
      check = function(lab, res)
        return { ok = true, msg = "the long benchmark finished" }
      end,
    },
    {
      -- three checks fail, each with a message longer than any box: the
      -- verdict must still be readable whole (shell_verdict.sh)
      id = "checks", title = "Three checks fail",
      text = "steps/06-checks.md",
      check = function(lab)
        local long = string.rep("this sentence makes the message longer than one row of the box, ", 3)
        return {
          { ok = false, msg = "first check: " .. long .. "tail-of-first", saw = "1", wanted = "2", where = "nowhere-first" },
          { ok = true, msg = "second check passes" },
          { ok = false, msg = "third check: " .. long .. "tail-of-third", saw = "three-seen", wanted = "three-wanted",
            where = "where-third" },
          { ok = false, msg = "fourth check: why, from your topology: no peer access GPU7->GPU0; slowest hop NV2",
            saw = "4.3 %", wanted = ">= 80 %", where = "where-fourth" },
        }
      end,
    },
    {
      id = "spans", title = "Fill on two ranks",
      text = "steps/07-spans.md",
      -- twice, as lab 4 step 2 runs (all ranks, then one as the reference):
      -- the timeline keeps the runs apart
      run = function(lab)
        local res = lab.spmd("scripts/spans.lua", { timeout = 30 })
        lab.spmd("scripts/spans.lua", { timeout = 30, ranks = 1 })
        return res
      end,
      check = function(lab, res)
        return { ok = res.ok, msg = "the script ran on every rank", saw = tostring(res.reason),
                 wanted = "ok", where = "log pane (5)" }
      end,
    },
    {
      -- answering judges the last run's result; only r measures again
      id = "measure", title = "Answer from a measurement",
      text = "steps/08-measure.md",
      questions = { { id = "size", ask = "How many elements did the run measure?" } },
      run = function(lab)
        lab.log("measuring now")
        return { size = 4096 }
      end,
      check = function(lab, res)
        local a = lab.answer("size")
        local ok = tonumber(a) == res.size
        return { ok = ok, msg = ok and ("elements measured: " .. a .. " is right") or "elements measured: look again",
                 saw = tostring(a), wanted = "the number in the log pane", where = "log pane (5)" }
      end,
    },
    {
      -- quick the first time, long after that: a pass, then a re-run to cancel
      id = "twice", title = "Pass, then run long",
      text = "steps/09-twice.md",
      run = function(lab)
        local n = lab.measured("00-shelltest", "twice", "runs") or 0
        lab.record("runs", n + 1)
        if n == 0 then return lab.bench("all_reduce", { b = "8", e = "8", n = 2, w = 1 }) end
        return lab.bench("all_reduce", { b = "8", e = "8", n = 1000000, w = 1 })
      end,
      check = function(lab, res)
        return { ok = res ~= nil, msg = "the benchmark ran" }
      end,
    },
  },
}
