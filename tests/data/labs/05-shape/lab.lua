-- a lab of the wrong shape: a step without a title
return { title = "Shape", steps = { { id = "untitled" } } }
