local total = 0
for i = 1, 5 do
  for j = i, 5 do
    local k = 0
    while k < j do k = k + 1 total = total + i * j end
  end
end
print(total)
