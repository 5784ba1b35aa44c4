local a, b = 0, 100
while a < b and not (a * 3 > b) do a = a + 7 b = b - 2 end
print(a, b)
