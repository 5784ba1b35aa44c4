local s = 0
for i = 1, 100000 do s = s + i % 7 end
print(s)
local c = 0
local i = 0
while i < 50000 do i = i + 1 if i % 3 == 0 then c = c + 1 end end
print(c)
