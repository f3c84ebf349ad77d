-- tests/data/labs/checks/more.lua - a second file, merged into `checks`.
return {
  truthy = function(a)
    return { ok = a.value and true or false, msg = (a.what or "value") .. (a.value and " holds" or " does not hold"),
             where = a.where or "" }
  end,
}
