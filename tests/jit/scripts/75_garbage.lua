-- Many short-lived strings and arrays: the collector reclaims them while the live ones stay intact.
local keep = {}
local checksum = 0
for i = 1, 60000 do
  local s = "k" .. i .. ":" .. (i * 3)
  local tmp = {i, i + 1, i + 2}
  checksum = checksum + #s + tmp[3]
  if i % 5000 == 0 then keep[#keep + 1] = s end
end
print(checksum, #keep, keep[1], keep[#keep])
local function churn(n)
  local last = ""
  for i = 1, n do
    local parts = {}
    for j = 1, 5 do parts[#parts + 1] = tostring(i * j) end
    last = parts[1] .. "/" .. parts[5]
  end
  return last
end
print(churn(20000), keep[3])
local grid = {}
for i = 1, 200 do
  local row = {}
  for j = 1, 50 do row[#row + 1] = "c" .. j end
  grid[#grid + 1] = row
  if #grid > 10 then grid = {grid[#grid]} end
end
print(#grid, grid[1][50], churn(3))
