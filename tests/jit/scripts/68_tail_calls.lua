-- Calls in tail position: a function calling itself there runs in one frame however deep (as
-- Lua's proper tail calls do); calls of other functions there are ordinary calls.
local function sum_to(n, acc) if n == 0 then return acc end return sum_to(n - 1, acc + n) end
local function gcd(a, b) if b == 0 then return a end return gcd(b, a % b) end
local function sq(x) return x * x end
local function squared_sum(a, b) return sq(a + b) end
local function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
local function collatz(n, steps)
  if n == 1 then return steps end
  if n % 2 == 0 then return collatz(n / 2, steps + 1) end
  return collatz(3 * n + 1, steps + 1)
end
local function find(t, x, i) if i > #t then return 0 end if t[i] == x then return i end return find(t, x, i + 1) end
local t = {}
for i = 1, 500 do t[#t + 1] = (i * 7919) % 1000 end
print(sum_to(250000, 0), gcd(1071, 462), squared_sum(3, 4))
print(is_even(300), is_odd(301))
local longest, at = 0, 0
for n = 1, 3000 do
  local s = collatz(n, 0)
  if s > longest then longest, at = s, n end
end
print(longest, at, find(t, t[437], 1), find(t, 1001, 1))
