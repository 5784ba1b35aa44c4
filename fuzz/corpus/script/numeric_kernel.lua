-- A numeric kernel: a 48x48 matrix product, a prefix sum and a Horner polynomial over the result.
local n = 48
local a, b, c = {}, {}, {}
for i = 1, n * n do
  a[#a + 1] = ((i * 7) % 13) / 13
  b[#b + 1] = ((i * 5) % 11) / 11
  c[#c + 1] = 0
end

for i = 0, n - 1 do
  for j = 0, n - 1 do
    local sum = 0
    for k = 0, n - 1 do
      sum = sum + a[i * n + k + 1] * b[k * n + j + 1]
    end
    c[i * n + j + 1] = sum
  end
end

local prefix = 0
for i = 1, n * n do
  prefix = prefix + c[i]
  c[i] = prefix
end

local function horner(x)
  return ((((0.5 * x - 1.25) * x + 2) * x - 0.75) * x + 1)
end

local acc = 0
for i = 1, n * n, 7 do
  acc = acc + horner(c[i] / prefix)
end
print("trace-ish", math.floor(c[n * n] * 1000) / 1000)
print("horner sum", math.floor(acc * 1e6 + 0.5) / 1e6)
