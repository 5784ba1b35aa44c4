-- Records holding functions: handlers, event queues, a small state machine.
local function make_entity(name, hp)
  local self = {name = name, hp = hp, log = ""}
  self.log = name .. " spawned"
  return self
end
local handlers = {}
local function on(f) handlers[#handlers + 1] = f end
local fired = 0
on(function(e, amount) e.hp = e.hp - amount fired = fired + 1 end)
on(function(e, amount) e.log = e.log .. "; hit " .. amount end)
on(function(e, amount)
  if e.hp <= 0 then e.log = e.log .. "; down" end
end)
local function emit(e, amount)
  for i = 1, #handlers do handlers[i](e, amount) end
end
local orc = make_entity("orc", 25)
emit(orc, 10)
emit(orc, 20)
print(orc.name, orc.hp, fired, orc.log)
local machine = {state = "idle", ticks = 0}
local transitions = {
  idle = function(m) if m.ticks > 2 then return "walk" end return "idle" end,
  walk = function(m) if m.ticks > 5 then return "run" end return "walk" end,
  run = function(m) return "run" end,
}
local trace = ""
for t = 1, 8 do
  machine.ticks = t
  local step = transitions.idle
  if machine.state == "walk" then step = transitions.walk end
  if machine.state == "run" then step = transitions.run end
  machine.state = step(machine)
  trace = trace .. machine.state:sub(1, 1)
end
print(trace, machine.state)
local button = {label = "ok", on_click = function(n) return n * 2 end}
print(button.on_click(21), button.label)
button.on_click = function(n) return n + 1 end
print(button.on_click(21))
-- Methods: obj:f(...) calls the record's field f with obj first.
local function new_enemy(name, hp)
  return {
    name = name,
    hp = hp,
    hit = function(self, n) self.hp = self.hp - n return self.hp end,
    describe = function(self) return self.name .. ":" .. self.hp end,
  }
end
local enemies = {new_enemy("orc", 30), new_enemy("imp", 12)}
for round = 1, 3 do
  for i = 1, #enemies do enemies[i]:hit(round * i) end
end
print(enemies[1]:describe(), enemies[2]:describe(), enemies[2]:hit(0))
