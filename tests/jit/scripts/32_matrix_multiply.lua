local n = 3
local a, b, c = {}, {}, {}
for i = 1, n * n do a[#a + 1] = i b[#b + 1] = n * n - i c[#c + 1] = 0 end
for i = 0, n - 1 do
  for j = 0, n - 1 do
    local s = 0
    for k = 0, n - 1 do s = s + a[i * n + k + 1] * b[k * n + j + 1] end
    c[i * n + j + 1] = s
  end
end
for i = 1, #c do print(c[i]) end
