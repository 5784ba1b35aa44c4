local t = {}
for n = 1, 15 do t[#t + 1] = n * (n + 1) / 2 end
for i = 1, #t, 4 do print(i, t[i]) end
