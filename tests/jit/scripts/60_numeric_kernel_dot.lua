local n = 1000
local a, b = {}, {}
for i = 1, n do a[#a + 1] = math.sin(i) b[#b + 1] = math.cos(i) end
local dot = 0
for i = 1, n do dot = dot + a[i] * b[i] end
print(dot)
