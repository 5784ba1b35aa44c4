for d = 0, 360, 45 do
  local r = d * math.pi / 180
  print(d, math.floor(math.sin(r) * 1000 + 0.5) / 1000, math.floor(math.cos(r) * 1000 + 0.5) / 1000)
end
