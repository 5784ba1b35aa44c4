for i = 0, 10 do print(i, 2 ^ i, i ^ 0.5, i ^ -1, (-2) ^ i) end
print(0 ^ 0, 0 ^ 1, 1 ^ 1e10, 10 ^ 308, 10 ^ 309)
