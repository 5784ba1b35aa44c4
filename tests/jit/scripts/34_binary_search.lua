local xs = {}
for i = 1, 100 do xs[#xs + 1] = i * 3 end
function find(v)
  local lo, hi = 1, #xs
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    if xs[mid] == v then return mid elseif xs[mid] < v then lo = mid + 1 else hi = mid - 1 end
  end
  return -1
end
print(find(3), find(150), find(300), find(301), find(0))
