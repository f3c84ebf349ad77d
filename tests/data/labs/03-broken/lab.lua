-- a deliberately broken lab: a syntax error
return {
  title = "Broken",
  steps = { { id = "x" title = "missing comma" } },
}
