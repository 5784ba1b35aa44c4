function a() return b() + 1 end
function b() return 41 end
print(a())
