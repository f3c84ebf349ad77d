while true do local s = string.rep("z", 1e8) end
