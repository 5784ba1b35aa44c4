function sum(xs) local s = 0 for i = 1, #xs do s = s + xs[i] end return s end
function fill(xs, n, v) for i = 1, n do xs[#xs + 1] = v end end
function reverse(xs)
  local i, j = 1, #xs
  while i < j do xs[i], xs[j] = xs[j], xs[i] i = i + 1 j = j - 1 end
end
local t = {1, 2, 3, 4, 5}
print(sum(t))
fill(t, 3, 7)
print(#t, sum(t))
reverse(t)
print(t[1], t[#t], t[4])
