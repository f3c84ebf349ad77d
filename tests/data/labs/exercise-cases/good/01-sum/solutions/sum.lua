-- sum.lua - return a function that adds two numbers
return function(a, b)
  return a + b
end
