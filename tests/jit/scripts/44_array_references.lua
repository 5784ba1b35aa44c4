local a = {1, 2, 3}
local b = a
b[#b + 1] = 4
print(#a, a[4], a == b)
function grow(t) t[#t + 1] = #t + 1 end
grow(a) grow(b)
print(#a, a[6])
local c = {1, 2, 3, 4, 5, 6}
print(a == c, #c == #a)
