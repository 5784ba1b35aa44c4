local log = {}
function record(v) log[#log + 1] = v end
function noop() end
record(1)
noop()
record(2)
print(#log)
function early(x) if x > 0 then print("positive") return end print("not positive") end
early(1)
early(-1)
