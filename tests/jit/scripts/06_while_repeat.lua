local i, s = 0, 0
while i < 10 do i = i + 1 s = s + i end
print(i, s)
repeat i = i - 3 until i < 0
print(i)
local n = 27
local steps = 0
while n ~= 1 do
  if n % 2 == 0 then n = n / 2 else n = 3 * n + 1 end
  steps = steps + 1
end
print(steps)
repeat local z = i + 1 i = z until z > 3
print(i)
