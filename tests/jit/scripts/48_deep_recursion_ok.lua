function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(150))
function sum_to(n) if n == 0 then return 0 end return n + sum_to(n - 1) end
print(sum_to(100))
