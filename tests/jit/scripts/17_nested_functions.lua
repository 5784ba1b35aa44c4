local scale = 3
function outer(x)
  local function helper(y) return y * scale end
  return helper(x) + helper(1)
end
print(outer(2), outer(10))
