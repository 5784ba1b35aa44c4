local t, f = true, false
print(t and f, t or f, not t, not f, t and t, f or f)
print(not 0, not 1, 0 and 5, 1 or 2)
local x = 3
print(x > 2 and 10 or 20, x > 5 and 10 or 20, x == 3 and x or -x)
print(f and t or f, t and f or t, (x > 1) == t)
