local function sieve(n, flags)
  for i = 1, n do flags[i] = true end
  local count = 0
  for i = 2, n do
    if flags[i] then
      count = count + 1
      local j = i + i
      while j <= n do
        flags[j] = false
        j = j + i
      end
    end
  end
  return count
end
local flags = {}
for i = 1, 1000000 do flags[#flags + 1] = false end
local total = 0
for round = 1, 4 do total = total + sieve(1000000, flags) end
print(total)
