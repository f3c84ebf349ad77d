-- A fixture lab for the shell's Korean layout test (tests/shell/shell_korean.sh,
-- issue 29): a step whose text has Hangul in a table and in long lines, in
-- both languages (steps/*.ko.md, lang/ko.lua), and a check whose verdict is
-- long. The repository's labs are not used: their Korean is written apart.
return {
  title    = "Hangul layout",
  summary  = "Wide characters in the lists, the text, tables and the verdict",
  backends = "sim and cuda",
  ranks    = 2,
  steps = {
    {
      id = "table", title = "A table and long lines",
      text = "steps/01-table.md",
    },
    {
      -- the English text itself has Hangul: the layout is tested in either
      -- language, whatever the catalog does
      id = "mixed", title = "Mixed cells wrap in narrow columns",
      text = "steps/02-mixed.md",
      questions = { { id = "share", ask = "What share of the data does each rank send in a ring all-reduce?" } },
    },
    {
      id = "verdict", title = "A long verdict",
      text = "steps/03-verdict.md",
      check = function(lab)
        return { ok = false,
                 msg = L("the busbw of all-reduce is %s of the peak; this sentence is longer than one row of the box", "15 %"),
                 saw = L("measured %s", "12.5 GB/s"), wanted = L("at least %s", "80 %"),
                 where = L("the busbw column of the results pane") }
      end,
    },
    {
      -- no Korean on purpose: the shell shows the English with the marker
      id = "untranslated", title = "Not translated yet",
      text = "steps/04-untranslated.md",
    },
  },
}
