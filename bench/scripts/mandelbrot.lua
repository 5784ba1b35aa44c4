local size = 600
local count = 0
for y = 0, size - 1 do
  local ci = 2 * y / size - 1
  for x = 0, size - 1 do
    local cr = 2 * x / size - 1.5
    local zr, zi, n = 0, 0, 0
    while n < 50 and zr * zr + zi * zi <= 4 do
      zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
      n = n + 1
    end
    if n == 50 then count = count + 1 end
  end
end
print(count)
