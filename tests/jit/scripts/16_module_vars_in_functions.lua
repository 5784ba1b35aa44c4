local counter = 0
local history = {}
function bump(by) counter = counter + by history[#history + 1] = counter end
bump(1) bump(5) bump(-2)
print(counter, #history, history[2])
local function reset() counter = 0 end
reset()
print(counter)
