-- String-heavy gameplay work: building names and messages, formatting, parsing numbers back,
-- comparing and sorting keys.
local function make_name(i)
  return "unit_" .. (i % 97) .. "_" .. string.char(65 + i % 26)
end

local names = {}
for i = 1, 4000 do names[#names + 1] = make_name(i) end

-- Insertion-sorted key list (string comparisons).
local function sort(a)
  for i = 2, #a do
    local v = a[i]
    local j = i - 1
    while j >= 1 and a[j] > v do
      a[j + 1] = a[j]
      j = j - 1
    end
    a[j + 1] = v
  end
end
local keys = {}
for i = 1, 1500 do keys[#keys + 1] = names[(i * 7) % #names + 1] end
sort(keys)

-- Messages formatted and measured, numbers parsed back.
local total = 0
local checksum = 0
for frame = 1, 60 do
  for i = 1, 1000 do
    local msg = string.format("%s hp=%d pos=%.2f", names[i], (i * frame) % 100, i / 7)
    total = total + #msg
    local hp = tonumber(string.sub(msg, string.len(names[i]) + 5, string.len(names[i]) + 6))
    if hp then checksum = checksum + hp end
  end
end

-- A log line joined from parts, upper-cased, searched byte by byte.
local line = ""
for i = 1, 300 do line = line .. names[i]:sub(1, 4) .. "," end
local upper = line:upper()
local commas = 0
for i = 1, #upper do
  if string.byte(upper, i) == 44 then commas = commas + 1 end
end

local equal = 0
for i = 1, #names - 1 do
  if names[i] == names[i + 1] then equal = equal + 1 end
  if names[i] == make_name(i) then equal = equal + 1 end
end
print(keys[1], keys[#keys], total, checksum, commas, #upper, equal)
