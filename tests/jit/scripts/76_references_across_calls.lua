-- A compiled loop holds strings and arrays only in its registers while the functions it calls
-- allocate enough to run the collector: what it holds must survive every collection.
local function garbage(i)
  local last = ""
  for k = 1, 60 do last = "h" .. k .. "_" .. i end
  local t = {}
  for k = 1, 20 do t[#t + 1] = k end
  return #last + #t
end
local function named(i) return "held" .. i end
local function numbers(i) return {i, i + 1, i + 2} end
local function hold(n)
  local total = 0
  local bytes = 0
  for i = 1, n do
    local held = named(i)
    local held_row = numbers(i)
    local g = garbage(i)
    total = total + #held + held_row[3] + g
    bytes = bytes + string.byte(held, 1) + string.byte(held, #held)
  end
  return total .. " " .. bytes
end
print(hold(3000))
print(hold(10))
