function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end
function lcm(a, b) return a / gcd(a, b) * b end
print(gcd(48, 18), gcd(17, 5), lcm(4, 6), lcm(21, 6))
local l = 1
for i = 1, 20 do l = lcm(l, i) end
print(l)
