function sign(x) return x > 0 and 1 or (x < 0 and -1 or 0) end
print(sign(5), sign(-3), sign(0))
function clamp(x, lo, hi) return x < lo and lo or (x > hi and hi or x) end
print(clamp(5, 0, 3), clamp(-1, 0, 3), clamp(2, 0, 3))
local t = {1, 2}
local u = #t > 1 and t or {9}
print(u[1], #u)
