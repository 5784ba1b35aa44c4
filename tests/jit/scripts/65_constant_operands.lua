-- Comparisons and arithmetic with a number literal on either side, for values at the edges
-- (NaN, signed zeros, infinities, equal values), in loops so that compiled pages run them too.
local values = {0 / 0, -0, 0, 1, -1, 2.5, 1 / 0, -1 / 0, 3, 1e308}
local lt, le, gt, ge, eq, ne, klt, kle, kgt, kge = 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
local sum = 0
for round = 1, 30 do
  for i = 1, #values do
    local x = values[i]
    if x < 1 then lt = lt + 1 end
    if x <= 0 then le = le + 1 end
    if x > 2.5 then gt = gt + 1 end
    if x >= -0 then ge = ge + 1 end
    if x == 0 then eq = eq + 1 end
    if x ~= 3 then ne = ne + 1 end
    if 1 < x then klt = klt + 1 end
    if 0 <= x then kle = kle + 1 end
    if 2.5 > x then kgt = kgt + 1 end
    if -1 >= x then kge = kge + 1 end
    local y = x + 1
    local z = 2 * x - 0.5
    local w = x / 4 + 3 * x
    if y == y and z == z and w == w and y < 1e300 and y > -1e300 then sum = sum + y + z + w end
  end
end
print(lt, le, gt, ge, eq, ne)
print(klt, kle, kgt, kge)
print(sum)
print(1 / (0 * -1 + 0), 1 / (-0 * 1), 1 / (-0 + 0), 1 / (-0 - 0), 1 / (0 / -4))
