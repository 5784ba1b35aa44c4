print(math.min(5, 3, 9, -2, 7), math.max(5, 3, 9, -2, 7))
print(math.min(1), math.max(-1), math.min(2, 2), math.max(1.5, 1.25))
local m = 0
for i = 1, 10 do m = math.max(m, (i * 7) % 11) end
print(m)
