-- Records in hot loops: particles with positions and velocities, stepped many times.
local particles = {}
for i = 1, 200 do
  particles[#particles + 1] = {pos = {x = i, y = 0}, vel = {x = (i % 7) - 3, y = (i % 5) + 1}, life = 100 + i % 13}
end
local function step(list, dt)
  local alive = 0
  for i = 1, #list do
    local p = list[i]
    if p.life > 0 then
      p.pos.x = p.pos.x + p.vel.x * dt
      p.pos.y = p.pos.y + p.vel.y * dt
      p.vel.y = p.vel.y - 9.8 * dt
      p.life = p.life - 1
      alive = alive + 1
    end
  end
  return alive
end
local alive = 0
for frame = 1, 120 do alive = step(particles, 0.016) end
local sx, sy = 0, 0
for i = 1, #particles do
  sx = sx + particles[i].pos.x
  sy = sy + particles[i].pos.y
end
print(alive, string.format("%.6f %.6f", sx, sy))
local counter = {count = 0}
local function bump(c, n) c.count = c.count + n end
for i = 1, 100000 do bump(counter, i % 3) end
print(counter.count)
