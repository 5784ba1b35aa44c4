local function square(x) return x * x end
local function half(x) return x * 0.5 end
local function inc(x) return x + 1 end
local function map(f, src, dst, n)
  for i = 1, n do dst[i] = f(src[i]) end
end
local function reduce(f, src, n, acc)
  for i = 1, n do acc = f(acc, src[i]) end
  return acc
end
local function add(a, b) return a + b end
local function larger(a, b) if a > b then return a end return b end
local n = 1000
local a, b = {}, {}
for i = 1, n do a[#a + 1] = i % 17 b[#b + 1] = 0 end
local sum, top = 0, 0
for round = 1, 10000 do
  map(square, a, b, n)
  map(half, b, b, n)
  map(inc, b, b, n)
  sum = sum + reduce(add, b, n, 0)
  top = larger(top, reduce(larger, b, n, 0))
end
print(sum, top)
