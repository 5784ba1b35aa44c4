-- Records: fixed named fields, nested records and arrays, records in arrays, passed and returned.
local function vec(x, y) return {x = x, y = y} end
local function add(a, b) return vec(a.x + b.x, a.y + b.y) end
local function scale(v, k) return {y = v.y * k, x = v.x * k} end
local function dot(a, b) return a.x * b.x + a.y * b.y end
local a, b = vec(1, 2), vec(3.5, -4)
local c = add(scale(a, 2), b)
print(c.x, c.y, dot(a, b), dot(c, c))
local player = {name = "hero", hp = 100, alive = true, pos = vec(0, 0), inventory = {"sword", "shield"}}
player.pos.x = player.pos.x + 3
player.pos = add(player.pos, vec(1, 1))
player.hp = player.hp - 35
player.inventory[#player.inventory + 1] = "potion"
player.alive = player.hp > 0
print(player.name, player.hp, player.alive, player.pos.x, player.pos.y, #player.inventory, player.inventory[3])
local enemies = {}
for i = 1, 6 do
  enemies[#enemies + 1] = {id = i, hp = 10 * i, pos = vec(i, -i), name = "enemy" .. i}
end
local function damage_all(list, amount)
  local dead = 0
  for i = 1, #list do
    local e = list[i]
    e.hp = e.hp - amount
    if e.hp <= 0 then dead = dead + 1 end
  end
  return dead
end
print(damage_all(enemies, 25), damage_all(enemies, 10), enemies[6].hp, enemies[1].name)
local function closest(list, to)
  local best = list[1]
  local best_d = math.huge
  for i = 1, #list do
    local dx, dy = list[i].pos.x - to.x, list[i].pos.y - to.y
    local d = dx * dx + dy * dy
    if d < best_d then
      best, best_d = list[i], d
    end
  end
  return best
end
local near = closest(enemies, vec(4.2, -3.9))
print(near.id, near.name, near == enemies[4], near == enemies[5])
local swap = {first = "a", second = "b"}
swap.first, swap.second = swap.second, swap.first
print(swap.first, swap.second)
local grid = {cells = {}, width = 3}
for i = 1, 9 do grid.cells[#grid.cells + 1] = {value = i * i, open = i % 2 == 0} end
local open, total = 0, 0
for i = 1, #grid.cells do
  if grid.cells[i].open then open = open + 1 end
  total = total + grid.cells[i].value
end
print(open, total, grid.width, grid.cells[grid.width * 2].value)
