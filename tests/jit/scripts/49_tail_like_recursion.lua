function count_down(n, acc) if n == 0 then return acc end return count_down(n - 1, acc + n) end
print(count_down(100, 0))
