local a = {9, 4, 7, 1, 8, 2, 6, 3, 5, 0.5, -1}
for i = 2, #a do
  local v = a[i]
  local j = i - 1
  while j >= 1 and a[j] > v do a[j + 1] = a[j] j = j - 1 end
  a[j + 1] = v
end
for i = 1, #a do print(a[i]) end
