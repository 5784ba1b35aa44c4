local function ack(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, n - 1))
end
local total = 0
for i = 1, 60 do total = total + ack(2, 200 + i) + ack(3, 5) end
print(total, ack(3, 8))
