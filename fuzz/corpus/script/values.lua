-- Seed: every kind of value in a few lines (strings, records, closures, methods, nested arrays).
local tag = "k" .. 1 .. ("!"):rep(2)
local p = {name = tag:upper(), pos = {x = 1, y = 2}, hit = function(self, n) self.pos.x = self.pos.x - n end}
p:hit(3)
local function counter()
  local n = 0
  return function() n = n + 1 return n end
end
local c = counter()
local grid = {{1, 2}, {3}}
print(string.format("%s %5.1f %d %q", p.name, p.pos.x, c() + c() + #grid[1], string.sub(tag, 2, -2)))
print(tostring(#tag) < "9", tonumber("0x1F"), string.byte("A"), string.char(66))
