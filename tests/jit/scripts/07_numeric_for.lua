for i = 1, 3 do print(i) end
for i = 3, 1, -1 do print(i) end
for i = 1, 2, 0.5 do print(i) end
for i = 1, 0 do print("never") end
for i = 0.1, 0.35, 0.1 do print(i) end
local s = 0
for i = 10, 1, -3 do s = s + i end
print(s)
for i = 1, 3 do local i = i * 10 print(i) end
