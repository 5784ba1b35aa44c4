local t = {1, 2, 3}
local i = 1
i, t[i] = i + 1, 20
print(i, t[1], t[2])
local x, y, z = 1, 2, 3
x, y, z = z, x, y
print(x, y, z)
