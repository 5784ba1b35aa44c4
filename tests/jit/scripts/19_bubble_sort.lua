local a = {5, 3, 8, 1, 9, 2, 7}
for i = 1, #a do
  for j = 1, #a - i do
    if a[j] > a[j + 1] then a[j], a[j + 1] = a[j + 1], a[j] end
  end
end
for i = 1, #a do print(a[i]) end
