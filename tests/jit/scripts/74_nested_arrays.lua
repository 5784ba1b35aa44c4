-- Arrays of arrays and arrays of strings: grids, tables of names, matrix products.
local function matrix(n, m, f)
  local rows = {}
  for i = 1, n do
    local row = {}
    for j = 1, m do row[#row + 1] = f(i, j) end
    rows[#rows + 1] = row
  end
  return rows
end
local function add(i, j) return i + j end
local function mul(i, j) return i * j - 1 end
local function product(a, b)
  local out = {}
  for i = 1, #a do
    local row = {}
    for j = 1, #b[1] do
      local sum = 0
      for k = 1, #b do sum = sum + a[i][k] * b[k][j] end
      row[#row + 1] = sum
    end
    out[#out + 1] = row
  end
  return out
end
local c = product(matrix(4, 3, add), matrix(3, 5, mul))
for i = 1, #c do
  local line = ""
  for j = 1, #c[i] do line = line .. c[i][j] .. " " end
  print(line)
end
local names = {{"ann", "bob"}, {"cy"}, {}}
names[3][1] = "dee"
names[#names + 1] = {"eve", "fay", "gus"}
local count = 0
for i = 1, #names do
  for j = 1, #names[i] do
    count = count + 1
    names[i][j] = names[i][j]:upper()
  end
end
print(count, names[1][2], names[3][1], names[4][3], #names[2])
local cube = {}
for i = 1, 3 do
  cube[i] = {}
end
cube[#cube + 1] = {}
for i = 1, #cube do
  for j = 1, 2 do
    cube[i][#cube[i] + 1] = {i, j, i * j}
  end
end
print(#cube, #cube[4], cube[4][2][3], cube[2][1][1] + cube[3][2][2])
local same = cube[1]
print(same == cube[1], same == cube[2], cube[1][1] == cube[1][1])
