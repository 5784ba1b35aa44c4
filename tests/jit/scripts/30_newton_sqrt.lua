function newton(x)
  local g = x / 2
  for i = 1, 20 do g = (g + x / g) / 2 end
  return g
end
print(newton(2), newton(144), newton(1e10), math.sqrt(2) - newton(2))
