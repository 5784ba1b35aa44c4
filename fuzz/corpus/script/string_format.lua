-- string.format: the conversions, flags, widths and precisions of the subset.
print(string.format("%d %i %5d %-5d| %05d %+d", 42, -7, 3, 3, 42, 5))
print(string.format("%f %.2f %10.3f %-10.1f| %e %.3E", 3.14159, 2.5, -1.0, 0.25, 12345.678, 0.000123))
print(string.format("%g %g %g %.3g %G", 100000, 1000000, 0.0001, 2 / 3, 1e-10))
print(string.format("%x %X %o %#x %08x", 255, 255, 8, 255, 48879))
print(string.format("%s|%10s|%-10s|%.3s", "abc", "right", "left", "truncated"))
print(string.format("%s %s %s", 1, 2.5, -3))
print(string.format("%q", 'say "hi"\\ and\nmore'))
print(string.format("%c%c%c", 75, 105, 108))
print(string.format("100%% of %d", 7), string.format("no conversions"))
print(string.format("%5.1f%%", 99.44), ("%d-%d"):format(1, 2))
local rows = {}
for i = 1, 5 do rows[#rows + 1] = string.format("%-6s%4d%8.2f", "row" .. i, i * i, i / 7) end
for i = 1, #rows do print(rows[i]) end
local long = string.rep("x", 120)
print(#string.format("%s", long), string.format("%.5s", long))
