local n = 0
repeat
  local m = n * 2
  n = n + 1
until m >= 10
print(n)
