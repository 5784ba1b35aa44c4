local bits = {}
for i = 1, 8 do bits[#bits + 1] = i % 3 == 0 end
local n = 0
for i = 1, #bits do if bits[i] then n = n + 1 end end
print(n, bits[3], bits[4])
bits[1] = not bits[1]
print(bits[1])
