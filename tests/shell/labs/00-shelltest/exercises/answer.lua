-- return the answer to everything
return 0
