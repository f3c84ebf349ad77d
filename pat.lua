print(string.find(string.rep("a", 1e5), ".-.-.-.-.-.-.-.-b"))
