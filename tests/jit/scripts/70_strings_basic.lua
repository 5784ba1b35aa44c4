-- Strings as values: literals, locals, parameters, results, module variables, concatenation, length.
local greeting = "hello"
local target = 'world'
local line = greeting .. ", " .. target .. "!"
print(line, #line, #"", #"\n\t")
local function wrap(s, left, right) return left .. s .. right end
print(wrap(line, "[", "]"), wrap("", "<", ">"))
local function repeat_join(s, n)
  local out = ""
  for i = 1, n do
    if i > 1 then out = out .. "-" end
    out = out .. s
  end
  return out
end
print(repeat_join("ab", 4), repeat_join("x", 1), #repeat_join("xyz", 100))
-- Numbers join as print writes them.
print(1 .. "", 1.5 .. "|" .. -2 .. "|" .. 1e15 .. "|" .. 1e16 .. "|" .. 0.1 .. "|" .. 2^53 .. "|" .. -0.25)
print(10 / 3 .. "", 1 / 0 .. "", -1 / 0 .. "", 123456789012 .. "")
local count = 0
local s = "start"
while #s < 40 do
  s = s .. count
  count = count + 1
end
print(s, count)
local escapes = "tab\tnewline\\n quote\" apostrophe' \65\066\0671"
print(escapes, #escapes)
local long = [[a long
string with "quotes"]]
print(long, #long)
local name = "kiln"
local same = "ki" .. "ln"
print(name == same, name ~= same, name == "Kiln", "" == "")
local t = true
print((t and "yes" or "no"), (not t and "yes" or "no"))
