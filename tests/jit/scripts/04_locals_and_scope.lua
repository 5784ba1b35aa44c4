local x = 1
do
  local x = 2
  print(x)
  do local x = x + 1 print(x) end
  print(x)
end
print(x)
local a, b, c = 1, 2, 3
a, b, c = c, a, b
print(a, b, c)
local y = 10
local y = y * 2
print(y)
