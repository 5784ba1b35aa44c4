-- Lua stores a multiple assignment right to left, and reads a local used as an array or index
-- when it stores.
local x = 0
x, x = 1, 2
print(x)
local a = {0, 0}
a[1], a[1] = 1, 2
print(a[1])
local t = {0, 0}
local i = 1
function f() i = 2 return 5 end
t[i] = f()
print(t[1], t[2])
local u = {1}
local v = {2}
function g() u = v return 1 end
print(u[g()])
