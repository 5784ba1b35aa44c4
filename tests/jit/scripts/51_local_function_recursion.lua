local function pow2(n) if n == 0 then return 1 end return 2 * pow2(n - 1) end
print(pow2(10), pow2(0), pow2(52))
