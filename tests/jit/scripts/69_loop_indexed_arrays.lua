-- Arrays indexed by a numeric for loop's variable: up, down, strided, fractional limits, the array
-- written and grown inside the loop, nested loops each indexing by its own variable.
local function fill(n)
  local t = {}
  for i = 1, n do t[#t + 1] = i * 3 - 1 end
  return t
end

local function sum_range(t, first, last, step)
  local s = 0
  for i = first, last, step do s = s + t[i] end
  return s
end

local t = fill(40)
print(sum_range(t, 1, #t, 1), sum_range(t, #t, 1, -1), sum_range(t, 2, #t, 3), sum_range(t, 40, 1, -7))
print(sum_range(t, 1, 10.5, 1), sum_range(t, 5, 4, 1), sum_range(t, 1, 40, 40), sum_range(t, 1, 0 / 0, 1))

-- Written in place, then grown past its end by the same loop.
local function double_then_extend(a, extra)
  local n = #a
  for i = 1, n + extra do
    if i <= n then a[i] = a[i] * 2 else a[i] = i end
  end
  return #a
end
local u = fill(10)
print(double_then_extend(u, 5), u[1], u[10], u[11], u[15])

-- Prefix sums, reversed copy, and a matrix transposed through row arrays.
local function prefix(a)
  local p = {}
  local s = 0
  for i = 1, #a do s = s + a[i] p[i] = s end
  return p
end
local function reversed(a)
  local r = {}
  for i = #a, 1, -1 do r[#r + 1] = a[i] end
  return r
end
local p = prefix(t)
local r = reversed(p)
print(p[1], p[20], p[40], r[1], r[40])

-- A flat 6x6 matrix times a vector: the inner loop indexes the vector by its variable, the outer
-- the result by its own.
local m, x, y = {}, {}, {}
for k = 1, 36 do m[#m + 1] = k % 7 - 3 end
for j = 1, 6 do x[j] = j * 0.5 end
for i = 1, 6 do
  local s = 0
  for j = 1, 6 do s = s + m[(i - 1) * 6 + j] * x[j] end
  y[i] = s
end
print(y[1], y[2], y[3], y[4], y[5], y[6])

-- The loop variable's local reassigned in the body: every access still checked.
local function skipping(a)
  local s = 0
  for i = 1, #a do
    s = s + a[i]
    i = i + 1
    if i <= #a then s = s + a[i] end
  end
  return s
end
print(skipping(t))
