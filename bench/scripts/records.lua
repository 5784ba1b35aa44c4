-- Record-heavy gameplay work: entities with nested position and velocity records, vector helpers
-- that make new records, and a pass that finds the nearest pair.
local function vec(x, y) return {x = x, y = y} end
local function add(a, b) return vec(a.x + b.x, a.y + b.y) end
local function scale(a, k) return vec(a.x * k, a.y * k) end
local function length2(a) return a.x * a.x + a.y * a.y end

local entities = {}
for i = 1, 600 do
  entities[#entities + 1] = {
    id = i,
    pos = vec(i % 37, i % 23),
    vel = vec((i % 7) - 3, (i % 5) - 2),
    hp = 100,
    alive = true,
  }
end

local function update(list, dt)
  local alive = 0
  for i = 1, #list do
    local e = list[i]
    if e.alive then
      e.pos = add(e.pos, scale(e.vel, dt))
      if length2(e.pos) > 2500 then
        e.vel = scale(e.vel, -1)
        e.hp = e.hp - 1
      end
      if e.hp <= 0 then e.alive = false end
      alive = alive + 1
    end
  end
  return alive
end

local alive = 0
for frame = 1, 400 do alive = update(entities, 0.05) end

local best, best_i, best_j = math.huge, 0, 0
for i = 1, 300 do
  local a = entities[i].pos
  for j = i + 1, 300 do
    local b = entities[j].pos
    local dx, dy = a.x - b.x, a.y - b.y
    local d = dx * dx + dy * dy
    if d < best then best, best_i, best_j = d, i, j end
  end
end
local sx, sy = 0, 0
for i = 1, #entities do
  sx = sx + entities[i].pos.x
  sy = sy + entities[i].pos.y
end
print(alive, best_i, best_j, string.format("%.4f %.4f %.6f", sx, sy, best))
