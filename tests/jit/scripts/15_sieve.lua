local n = 100
local composite = {}
for i = 1, n do composite[#composite + 1] = false end
local primes = {}
for i = 2, n do
  if not composite[i] then
    primes[#primes + 1] = i
    for j = i * i, n, i do composite[j] = true end
  end
end
print(#primes, primes[1], primes[#primes])
