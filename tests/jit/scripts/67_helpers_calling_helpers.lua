-- Small helpers that call small helpers (compiled into their callers with the helpers they call).
local function dot(ax, ay, bx, by) return ax * bx + ay * by end
local function len(x, y) return math.sqrt(dot(x, y, x, y)) end
local function sign(x) if x < 0 then return -1 end if x > 0 then return 1 end return 0 end
local function sgnlen(x, y) return sign(x) * len(x, y) end
local function at(t, i) return t[i] end
local function pair(t, i) return at(t, i) + at(t, i + 1) end
local function clamp(x, lo, hi) if x < lo then return lo end if x > hi then return hi end return x end
local function unit(x) return clamp(x, 0, 1) end
local function lerp(a, b, t) return a + (b - a) * unit(t) end
local xs = {}
for i = 1, 40 do xs[#xs + 1] = (i * 17) % 11 - 5 end
local total, signed, pairs_sum, mixed = 0, 0, 0, 0
for i = 1, 39 do
  total = total + len(xs[i], xs[i + 1])
  signed = signed + sgnlen(xs[i], 3)
  pairs_sum = pairs_sum + pair(xs, i)
  mixed = mixed + lerp(xs[i], xs[i + 1], i / 20 - 0.5)
end
print(math.floor(total * 1000), math.floor(signed * 1000), pairs_sum, mixed)
