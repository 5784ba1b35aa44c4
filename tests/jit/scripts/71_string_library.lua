-- The string functions of the subset, and the method form s:f().
local s = "Hello, Kiln World"
print(string.len(s), s:len(), string.upper(s), s:lower())
print(string.sub(s, 1, 5), s:sub(8), s:sub(-5), s:sub(-5, -2), s:sub(0), s:sub(3, 2), s:sub(100), s:sub(-100, 3))
print(string.rep("ab", 3), string.rep("x", 0), string.rep("x", -2), ("-"):rep(10))
print(string.byte("A"), string.byte("ABC", 2), string.byte("ABC", -1), ("z"):byte())
print(string.char(), string.char(75, 105, 108, 110), string.char(48 + 7))
print(tostring(42), tostring(-0.5), tostring(1e300), tostring(true), tostring(false), tostring("text"))
print(tonumber("42"), tonumber("  -3.25  "), tonumber("0x1F"), tonumber("1e3"), tonumber(8), tonumber(".5"))
local digits = ""
for i = 0, 9 do digits = digits .. string.char(string.byte("0") + i) end
print(digits, #digits)
local function reverse(str)
  local out = ""
  for i = #str, 1, -1 do out = out .. str:sub(i, i) end
  return out
end
print(reverse("stressed"), reverse(""), reverse("a"))
local function count_char(str, c)
  local n = 0
  for i = 1, #str do
    if str:sub(i, i) == c then n = n + 1 end
  end
  return n
end
print(count_char("mississippi", "s"), count_char("mississippi", "i"), count_char("", "a"))
local function caesar(str, shift)
  local out = ""
  for i = 1, #str do
    local b = str:byte(i)
    if b >= 97 and b <= 122 then b = (b - 97 + shift) % 26 + 97 end
    out = out .. string.char(b)
  end
  return out
end
print(caesar("hello world", 3), caesar(caesar("round trip", 11), 15))
local total = 0
for i = 1, 200 do total = total + tonumber(tostring(i * 3)) end
print(total)
