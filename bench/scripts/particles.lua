local function clamp(x, lo, hi)
  if x < lo then return lo end
  if x > hi then return hi end
  return x
end
local function lerp(a, b, t) return a + (b - a) * t end
local function dot(ax, ay, bx, by) return ax * bx + ay * by end
local function len(x, y) return math.sqrt(dot(x, y, x, y)) end
local n = 2000
local px, py, vx, vy = {}, {}, {}, {}
for i = 1, n do
  px[#px + 1] = (i * 37) % 100
  py[#py + 1] = (i * 91) % 100
  vx[#vx + 1] = ((i * 13) % 7) - 3
  vy[#vy + 1] = ((i * 29) % 5) - 2
end
local energy = 0
for step = 1, 2000 do
  for i = 1, n do
    local x, y = px[i], py[i]
    local speed = len(vx[i], vy[i])
    local damp = clamp(1 - speed * 0.01, 0.5, 1)
    vx[i] = lerp(vx[i], vx[i] * damp, 0.5)
    vy[i] = lerp(vy[i], vy[i] * damp - 0.1, 0.5)
    px[i] = clamp(x + vx[i] * 0.1, 0, 100)
    py[i] = clamp(y + vy[i] * 0.1, 0, 100)
    energy = energy + dot(vx[i], vy[i], vx[i], vy[i])
  end
end
print(math.floor(energy))
