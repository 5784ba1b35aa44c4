local px, py, vx, vy = 0, 10, 2, 0
local gravity = -9.8
local dt = 1 / 60
local bounces = 0
for frame = 1, 600 do
  vy = vy + gravity * dt
  px, py = px + vx * dt, py + vy * dt
  if py < 0 then py = -py vy = -vy * 0.8 bounces = bounces + 1 end
end
print(math.floor(px * 100) / 100, math.floor(py * 100) / 100, bounces)
