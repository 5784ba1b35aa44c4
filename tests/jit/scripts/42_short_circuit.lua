local calls = 0
function touch(v) calls = calls + 1 return v end
local r1 = touch(false) and touch(true)
local r2 = touch(true) or touch(false)
local r3 = touch(true) and touch(false)
print(r1, r2, r3, calls)
local n = 5
local r4 = n > 3 and touch(true) or touch(false)
print(r4, calls)
