-- A local declared in a loop is a new variable each iteration: each closure keeps its own.
local fs = {}
for i = 1, 5 do
  fs[#fs + 1] = function() return i end
end
local line = ""
for k = 1, #fs do line = line .. fs[k]() .. " " end
print(line)
local gs = {}
local j = 0
while j < 4 do
  j = j + 1
  local captured = j * j
  gs[#gs + 1] = function(add) captured = captured + add return captured end
end
print(gs[1](1), gs[2](1), gs[1](1), gs[4](0), j)
local function make_all(n)
  local out = {}
  for i = 1, n do
    local label = "item" .. i
    out[#out + 1] = function() return label .. "/" .. i end
  end
  return out
end
local made = make_all(3)
print(made[1](), made[2](), made[3]())
-- One variable outside the loop: every closure shares it.
local shared = 0
local adders = {}
for i = 1, 3 do adders[#adders + 1] = function() shared = shared + i end end
for k = 1, #adders do adders[k]() end
adders[3]()
print(shared)
-- Closures made in a hot loop, called at once and kept.
local total = 0
local kept = {}
for i = 1, 20000 do
  local f = function(x) return x + i end
  total = total + f(1)
  if i % 5000 == 0 then kept[#kept + 1] = f end
end
print(total, kept[1](0), kept[4](0))
