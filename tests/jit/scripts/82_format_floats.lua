-- string.format's float conversions over many values: exact halves (lua5.1 rounds them to even,
-- luajit away from zero: Kiln follows lua5.1), large and tiny magnitudes, widths and precisions.
local values = {0, 0.5, 1.5, 2.5, 0.125, 0.375, 2.675, 1.005, -1.25, 1 / 3, 2 / 3, 1e15, 1e16, 123456789.987,
                1e-5, 1e-7, 5e-324, 1.7976931348623157e308, 9.995, 99.995, 0.045, -0.0049}
for i = 1, 40 do values[#values + 1] = i / 7 * 10 ^ (i % 13 - 6) end
for i = 1, 30 do values[#values + 1] = -(i * 1.1) ^ (i % 9) end
local checksum = 0
for i = 1, #values do
  local v = values[i]
  local line = string.format("%f|%.2f|%.0f|%10.3f|%e|%.3e|%E|%g|%.3g|%G|%12.5g|%.0g|%.1e", v, v, v, v, v, v, v, v,
                             v, v, v, v, v)
  print(line)
  for k = 1, #line do checksum = (checksum * 31 + string.byte(line, k)) % 1000000007 end
end
print(#values, checksum)
print(string.format("%.99f", 0.1):sub(1, 40), #string.format("%.2f", 1e300))
