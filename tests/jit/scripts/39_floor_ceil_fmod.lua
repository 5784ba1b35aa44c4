local vals = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3}
for i = 1, #vals do
  local v = vals[i]
  print(v, math.floor(v), math.ceil(v), math.fmod(v, 2), v % 2, math.fmod(v, -2), v % -2)
end
