-- Closures: anonymous functions, local functions capturing locals, upvalues shared as Lua shares them.
local function counter(start, step)
  local n = start
  local function bump() n = n + step return n end
  local function peek() return n end
  return {bump = bump, peek = peek}
end
local c = counter(10, 5)
c.bump()
c.bump()
print(c.peek(), c.bump(), counter(0, 1).peek())
local function make_counter(start)
  local n = start
  return function() n = n + 1 return n end
end
local a, b = make_counter(0), make_counter(100)
print(a(), a(), b(), a(), b())
local function compose(f, g) return function(x) return f(g(x)) end end
local function twice(f) return compose(f, f) end
local inc = function(x) return x + 1 end
local sq = function(x) return x * x end
print(compose(sq, inc)(3), compose(inc, sq)(3), twice(sq)(3), twice(twice(inc))(0))
-- Two closures over one variable see each other's writes; so does the function that declared it.
local function account(balance)
  local log = ""
  local deposit = function(v) balance = balance + v log = log .. "+" .. v end
  local withdraw = function(v) balance = balance - v log = log .. "-" .. v end
  deposit(50)
  withdraw(20)
  deposit(5)
  return balance .. " " .. log
end
print(account(100))
-- Upvalues of upvalues: three levels.
local function outer(x)
  local function middle(y)
    local function inner(z) return x * 100 + y * 10 + z end
    return inner(3)
  end
  x = x + 1
  return middle(2)
end
print(outer(1), outer(5))
-- A captured parameter, changed after the capture.
local function later(v)
  local get = function() return v end
  v = v * 2
  return get()
end
print(later(21))
-- Recursion through a captured local function.
local function tree_sum(depth)
  local calls = 0
  local function walk(d)
    calls = calls + 1
    if d == 0 then return 1 end
    return walk(d - 1) + walk(d - 1)
  end
  local total = walk(depth)
  return total * 10000 + calls
end
print(tree_sum(10))
-- Strings and arrays captured.
local function joiner(sep)
  local parts = {}
  local function add(s) parts[#parts + 1] = s end
  local function result()
    local out = ""
    for i = 1, #parts do
      if i > 1 then out = out .. sep end
      out = out .. parts[i]
    end
    return out
  end
  return {add = add, result = result}
end
local j = joiner(", ")
j.add("alpha")
j.add("beta")
j.add("gamma")
print(j.result())
