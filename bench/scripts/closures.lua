-- Closures as gameplay code uses them: timers and event handlers that remember their state,
-- a filter/map pipeline of function values, counters made by factories.
local function make_timer(period)
  local elapsed, fired = 0, 0
  return function(dt)
    elapsed = elapsed + dt
    if elapsed >= period then
      elapsed = elapsed - period
      fired = fired + 1
    end
    return fired
  end
end

local timers = {}
for i = 1, 200 do timers[#timers + 1] = make_timer(0.1 + (i % 10) * 0.05) end
local fired = 0
for frame = 1, 2000 do
  fired = 0
  for i = 1, #timers do fired = fired + timers[i](0.016) end
end

local function map(list, f)
  local out = {}
  for i = 1, #list do out[#out + 1] = f(list[i]) end
  return out
end
local function filter(list, keep)
  local out = {}
  for i = 1, #list do
    if keep(list[i]) then out[#out + 1] = list[i] end
  end
  return out
end
local values = {}
for i = 1, 2000 do values[#values + 1] = i end
local sum = 0
for round = 1, 60 do
  local k = round % 7 + 1
  local mapped = map(values, function(v) return v * k end)
  local kept = filter(mapped, function(v) return v % 3 == round % 3 end)
  for i = 1, #kept do sum = sum + kept[i] end
end

local function counter()
  local n = 0
  return function() n = n + 1 return n end
end
local total = 0
for i = 1, 3000 do
  local c = counter()
  for k = 1, 50 do total = total + c() end
end
print(fired, sum, total)
