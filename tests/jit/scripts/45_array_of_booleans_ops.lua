local seen = {false, false, false, false, false}
local order = {3, 1, 3, 5, 1}
local dup = 0
for i = 1, #order do
  local k = order[i]
  if seen[k] then dup = dup + 1 else seen[k] = true end
end
print(dup, seen[1], seen[2], seen[5])
