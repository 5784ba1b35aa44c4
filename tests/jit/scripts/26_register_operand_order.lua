-- Lua reads a register operand when the operator runs: f's change to x is seen in x + f().
local x = 1
function bump() x = x + 10 return 0 end
print(x + bump(), x)
print(x < bump(), x)
function inner(p)
  local function twice() return 2 end
  local y = p
  print(y * twice(), x + bump(), x)
  return y
end
print(inner(3))
