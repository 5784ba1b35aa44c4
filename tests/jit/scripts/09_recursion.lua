function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print(fib(1), fib(10), fib(20))
local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
print(fact(5), fact(20), fact(25))
function ackermann(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ackermann(m - 1, 1) end
  return ackermann(m - 1, ackermann(m, n - 1))
end
print(ackermann(2, 3))
