local function less(a, b) return a < b end
local function greater(a, b) return a > b end
local function sift(t, start, stop, before)
  local root = start
  while root * 2 <= stop do
    local child = root * 2
    if child + 1 <= stop and before(t[child], t[child + 1]) then child = child + 1 end
    if before(t[root], t[child]) then
      local x = t[root]
      t[root] = t[child]
      t[child] = x
      root = child
    else
      return
    end
  end
end
local function heapsort(t, n, before)
  local start = math.floor(n / 2)
  while start >= 1 do
    sift(t, start, n, before)
    start = start - 1
  end
  local stop = n
  while stop > 1 do
    local x = t[stop]
    t[stop] = t[1]
    t[1] = x
    stop = stop - 1
    sift(t, 1, stop, before)
  end
end
local seed = 42
local function random()
  seed = (seed * 16807) % 2147483647
  return seed
end
local n = 20000
local t = {}
local check = 0
for round = 1, 6 do
  for i = 1, n do t[i] = random() % 100000 end
  if round % 2 == 0 then heapsort(t, n, less) else heapsort(t, n, greater) end
  check = check + t[1] + t[n] + t[n / 2]
end
print(check)
