local s = 0
for i = 1, 1000 do s = s + 0.1 end
print(s, s == 100)
local p = 1
for i = 1, 60 do p = p * 2 end
print(p, p + 1 == p)
