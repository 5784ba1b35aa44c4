function grade(s)
  if s >= 90 then return 4 elseif s >= 80 then return 3 elseif s >= 70 then return 2 elseif s >= 60 then return 1 end
  return 0
end
for s = 55, 95, 10 do print(s, grade(s)) end
