-- Strings compare in byte order; sorting an array of strings, searching it.
local words = {"pear", "apple", "fig", "banana", "Cherry", "apple", "date", "", "app", "apples"}
local function sort(a)
  for i = 2, #a do
    local v = a[i]
    local j = i - 1
    while j >= 1 and a[j] > v do
      a[j + 1] = a[j]
      j = j - 1
    end
    a[j + 1] = v
  end
end
sort(words)
local out = ""
for i = 1, #words do out = out .. "[" .. words[i] .. "]" end
print(out)
print("a" < "b", "a" < "B", "abc" < "abd", "abc" < "ab", "" < "a", "a" <= "a", "b" >= "a", "Z" > "a")
local function find(a, v)
  local lo, hi = 1, #a
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    if a[mid] == v then return mid end
    if a[mid] < v then lo = mid + 1 else hi = mid - 1 end
  end
  return -1
end
print(find(words, "fig"), find(words, "kiwi"), find(words, ""), find(words, "apples"))
local function max_of(a)
  local best = a[1]
  for i = 2, #a do
    if a[i] > best then best = a[i] end
  end
  return best
end
print(max_of(words), max_of({"x"}), max_of({"b", "a", "c", "bb"}))
local seen = 0
for i = 1, #words - 1 do
  if words[i] == words[i + 1] then seen = seen + 1 end
end
print(seen)
-- Every comparison over every pair, equal strings included, in a loop that is compiled.
local keys = {"b", "a", "b", "", "ab", "a", "ba", "b\0", "B", "ab"}
local function tally(list)
  local lt, le, eq, ne, gt, ge = 0, 0, 0, 0, 0, 0
  for i = 1, #list do
    for j = 1, #list do
      local x, y = list[i], list[j]
      if x < y then lt = lt + 1 end
      if x <= y then le = le + 1 end
      if x == y then eq = eq + 1 end
      if x ~= y then ne = ne + 1 end
      if x > y then gt = gt + 1 end
      if x >= y then ge = ge + 1 end
    end
  end
  return lt .. " " .. le .. " " .. eq .. " " .. ne .. " " .. gt .. " " .. ge
end
print(tally(keys), tally(words))
