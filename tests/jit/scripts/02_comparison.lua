print(1 < 2, 2 < 1, 1 <= 1, 2 >= 3, 3 > 2, 1 == 1, 1 ~= 1, 1 ~= 2)
print(true == true, true == false, false ~= true)
local a = 0.1 + 0.2
print(a == 0.3, a > 0.3, math.abs(a - 0.3) < 1e-15)
print(1 / 0 > 1e308, -1 / 0 < -1e308)
