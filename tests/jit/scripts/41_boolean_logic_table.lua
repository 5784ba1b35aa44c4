local vals = {true, false}
for i = 1, 2 do
  for j = 1, 2 do
    local a, b = vals[i], vals[j]
    print(a, b, a and b, a or b, not a, a == b, a ~= b)
  end
end
