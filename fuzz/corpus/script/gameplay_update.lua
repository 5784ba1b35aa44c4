-- A gameplay-style update: 64 agents seek a moving target inside an arena, bounce off its walls
-- and count how often they reach the target, for 2000 fixed steps.
local count = 64
local px, py, vx, vy, hits = {}, {}, {}, {}, {}
local seed = 12345

local function random()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end

for i = 1, count do
  px[#px + 1] = random() * 100
  py[#py + 1] = random() * 100
  vx[#vx + 1] = 0
  vy[#vy + 1] = 0
  hits[#hits + 1] = 0
end

local function update(step, dt)
  local tx = 50 + 40 * math.cos(step * 0.01)
  local ty = 50 + 40 * math.sin(step * 0.013)
  for i = 1, count do
    local dx, dy = tx - px[i], ty - py[i]
    local d = math.sqrt(dx * dx + dy * dy)
    if d < 1 then
      hits[i] = hits[i] + 1
      px[i], py[i] = random() * 100, random() * 100
    else
      vx[i] = vx[i] * 0.98 + dx / d * 0.5
      vy[i] = vy[i] * 0.98 + dy / d * 0.5
    end
    px[i] = px[i] + vx[i] * dt
    py[i] = py[i] + vy[i] * dt
    if px[i] < 0 or px[i] > 100 then vx[i] = -vx[i] end
    if py[i] < 0 or py[i] > 100 then vy[i] = -vy[i] end
  end
end

for step = 1, 2000 do update(step, 0.1) end
local total, best = 0, 0
for i = 1, count do
  total = total + hits[i]
  if hits[i] > best then best = hits[i] end
end
print("agents", count, "hits", total, "best", best)
print("agent 1 at", math.floor(px[1] * 100 + 0.5) / 100, math.floor(py[1] * 100 + 0.5) / 100)
