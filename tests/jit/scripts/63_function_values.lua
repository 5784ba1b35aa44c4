-- Functions are values: passed, stored in locals, compared, called through a variable.
function square(x) return x * x end
function cube(x) return x * x * x end
local function apply_twice(f, x) return f(f(x)) end
function map_sum(f, xs)
  local s = 0
  for i = 1, #xs do s = s + f(xs[i]) end
  return s
end
local op = square
print(op(3), apply_twice(square, 2), apply_twice(cube, 2))
op = cube
print(op(3), op(2))
print(map_sum(square, {1, 2, 3}), map_sum(cube, {1, 2, 3}))
local function pick(big) return big and cube or square end
print(pick(true)(2), pick(false)(2))
