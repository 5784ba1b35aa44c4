local a = {10, 20, 30}
print(#a, a[1], a[3])
a[2] = 25
a[#a + 1] = 40
print(#a, a[2], a[4])
local b = {}
for i = 1, 5 do b[#b + 1] = i * i end
local s = 0
for i = 1, #b do s = s + b[i] end
print(s, #b)
local flags = {true, false, true}
print(flags[1], flags[2], #flags)
local c = a
c[1] = 99
print(a[1], a == c, a == b)
