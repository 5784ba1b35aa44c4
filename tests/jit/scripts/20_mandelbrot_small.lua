local count = 0
for y = -1, 1, 0.25 do
  for x = -2, 0.5, 0.25 do
    local zr, zi, n = 0, 0, 0
    while n < 50 and zr * zr + zi * zi < 4 do
      zr, zi = zr * zr - zi * zi + x, 2 * zr * zi + y
      n = n + 1
    end
    if n == 50 then count = count + 1 end
  end
end
print(count)
