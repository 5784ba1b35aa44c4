-- Calls through function values whose callees are small leaves (compiled into the caller), with
-- every argument count, values that are not leaves, and more leaves than are inlined at one call.
local function zero() return 7 end
local function neg(x) return -x end
local function twice(x) return x + x end
local function clamp(x) if x < 0 then return 0 end if x > 100 then return 100 end return x end
local function add(a, b) return a + b end
local function pick(a, b) if a > b then return a end return b end
local function at(t, i) return t[i] end
local function sub(a, b) return a - b end
local function mul(a, b) return a * b * 0.5 end
local function mix(a, b, c) return a * b + c end
local function slow(x) local s = 0 for i = 1, 3 do s = s + x end return s end
local function call0(f, n) local s = 0 for i = 1, n do s = s + f() end return s end
local function map(f, src, dst, n) for i = 1, n do dst[i] = f(src[i]) end end
local function fold(f, src, n, acc) for i = 1, n do acc = f(acc, src[i]) end return acc end
local function fold3(f, src, n) local acc = 1 for i = 1, n do acc = f(acc, src[i], i) end return acc end
local src, dst = {}, {}
for i = 1, 50 do src[#src + 1] = (i * 37) % 23 - 11 dst[#dst + 1] = 0 end
print(call0(zero, 20))
local ones = {neg, twice, clamp, slow}
for round = 1, 3 do
  for k = 1, #ones do
    map(ones[k], src, dst, 50)
    print(round, k, fold(add, dst, 50, 0), fold(pick, dst, 50, -1000))
  end
end
print(fold3(mix, src, 10) % 1000003, fold(sub, src, 50, 0), fold(mul, src, 8, 1))
local t = {5, 6, 7}
local function get(f, i) return f(t, i) end
print(get(at, 1) + get(at, 3))
local function compose(f, g, x) return f(g(x)) end
print(compose(neg, twice, 4), compose(clamp, neg, -250), compose(twice, slow, 2))
