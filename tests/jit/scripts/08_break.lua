for i = 1, 10 do
  if i > 3 then break end
  print(i)
end
local j = 0
while true do
  j = j + 1
  for k = 1, 100 do if k > j then break end end
  if j == 5 then break end
end
print(j)
repeat print("once") break until false
