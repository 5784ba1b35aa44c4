local best, best_n = 0, 0
for start = 1, 300 do
  local n, steps = start, 0
  while n ~= 1 do
    if n % 2 == 0 then n = n / 2 else n = 3 * n + 1 end
    steps = steps + 1
  end
  if steps > best then best, best_n = steps, start end
end
print(best_n, best)
