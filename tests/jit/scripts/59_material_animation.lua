local base = 0.5
function roughness_at(t) return base + 0.25 * math.sin(t * 2 * math.pi) end
for step = 0, 8 do
  local t = step / 8
  print(t, math.floor(roughness_at(t) * 10000 + 0.5) / 10000)
end
