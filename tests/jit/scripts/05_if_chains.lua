function classify(n)
  if n < 0 then return -1 elseif n == 0 then return 0 elseif n < 10 then return 1 else return 2 end
end
for i = -2, 12, 3 do print(i, classify(i)) end
local v = 5
if v > 3 then print("big") end
if v > 10 then print("huge") else print("not huge") end
