for i = 1, 1 do print("one", i) end
for i = 5, 5, -1 do print("five", i) end
for i = 1, 3, 5 do print("step", i) end
for i = -1, -3, -1 do print(i) end
for i = 0.5, 2 do print(i) end
