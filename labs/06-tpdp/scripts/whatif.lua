-- whatif.lua - lab 6's what-if step on one rank: the note's 256-GPU layout
-- and the learner's two (mgpu.args: layout_a, layout_b), timing-only
-- (labs/lib/whatif/step.lua).
mgpu.import("whatif.step").run(mgpu.args)
