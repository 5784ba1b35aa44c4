for i = 1, 3 do
  i = i * 10
  print(i)
end
local total = 0
for k = 5, 1, -1 do total = total * 10 + k end
print(total)
