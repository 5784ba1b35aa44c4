#include <doctest/doctest.h>

#include "kiln/lang/checker.h"
#include "kiln/lang/parser.h"

using namespace kiln;
using namespace kiln::jit;
using namespace kiln::lang;

namespace {

std::string error_of(const std::string& source, const std::vector<HostSignature>& host = {}) {
  auto script = parse_script("t.lua", source);
  REQUIRE_MESSAGE(script, script.error().message);
  auto checked = check_script(*script, host);
  return checked ? std::string("(accepted)") : checked.error().message;
}

}  // namespace

TEST_SUITE("lang") {
  TEST_CASE("the checker infers parameter - return and variable types across calls") {
    auto script = parse_script("t.lua", R"(
local total = 0
local flags = {}
function add(a, b) return a + b end
function first(xs) return xs[1] end
local function is_big(x) return x > 10 end
flags[#flags + 1] = is_big(add(total, 20))
local best = first({3, 1, 2})
function even(n) if n == 0 then return true else return odd(n - 1) end end
function odd(n) if n == 0 then return false else return even(n - 1) end end
print(best, flags[1], even(10), "done", math.floor(math.pi), engine.param(2))
)");
    REQUIRE(script);
    auto checked = check_script(*script, {{"param", {Type::kNumber}, Type::kNumber}});
    REQUIRE_MESSAGE(checked, checked.error().message);
    const auto& fns = checked->functions;
    REQUIRE(fns.size() == 6);
    auto find = [&](const std::string& name) -> const CheckedFunction& {
      for (const auto& f : fns)
        if (f.name == name) return f;
      FAIL("no function " << name);
      return fns[0];
    };
    CHECK(find("add").params == std::vector<Type>{Type::kNumber, Type::kNumber});
    CHECK(find("add").result == Type::kNumber);
    CHECK(find("first").params == std::vector<Type>{Type::kNumberArray});
    CHECK(find("is_big").result == Type::kBoolean);
    CHECK(find("even").result == Type::kBoolean);
    CHECK(checked->module_slots == 4);  // and the local function's variable (its closure, were it one)
    const auto& flags = checked->declared.at(script->body[1].get());
    CHECK(flags[0].type == Type::kBooleanArray);
  }

  TEST_CASE("the chunk's loop locals live in its registers - its other locals are module variables") {
    auto script = parse_script("t.lua", R"(
local size = 4
local count = 0
for y = 1, size do
  local row = y * 2
  while row > 0 do
    local step = 1
    row = row - step
    count = count + 1
  end
end
function total() return count + size end
print(total())
)");
    REQUIRE(script);
    auto checked = check_script(*script);
    REQUIRE_MESSAGE(checked, checked.error().message);
    CHECK(checked->module_slots == 2);  // size and count: functions may read them
    int registers = 0;
    for (const auto& [stmt, vars] : checked->declared)
      for (const VarRef& var : vars) registers += var.kind == VarRef::kLocal ? 1 : 0;
    CHECK(registers == 3);  // y, row, step
    CHECK(checked->functions[0].frame_slots >= 3);
  }

  TEST_CASE("untypable programs and constructs outside the subset are rejected at file:line:col") {
    CHECK(error_of("local x = 1\nx = true") == "t.lua:2:5: type mismatch: assigning a boolean to a number");
    CHECK(error_of("local x") == "t.lua:1:1: local 'x' needs a value (nil is outside Kiln's script subset)");
    CHECK(error_of("y = 1") == "t.lua:1:1: assignment to undeclared global 'y' (declare it with 'local')");
    CHECK(error_of("print(z)") == "t.lua:1:7: unknown name 'z'");
    // A script function is called with exactly its parameters: a missing one has no value to read.
    CHECK(error_of("function f(a, b) return a + b end\nprint(f(1))")
              .starts_with("t.lua:2:7: function 'f' takes 2 arguments, not 1 (defined at "));
    CHECK(error_of("function f(a) return a end\nprint(f(1, 2))")
              .starts_with("t.lua:2:7: function 'f' takes 1 arguments, not 2 (defined at "));
    CHECK(error_of("local s = \"x\" + 1") == "t.lua:1:15: '+' needs numbers, not a string");
    CHECK(error_of("local s = \"x\" .. true") == "t.lua:1:18: '..' joins strings and numbers, not a boolean");
    CHECK(error_of("local a = {1}\nlocal s = \"x\" .. a") ==
          "t.lua:2:18: '..' joins strings and numbers, not an array of numbers");
    CHECK(error_of("local b = \"a\" < 1") == "t.lua:1:15: '<' compares a string with a number");
    CHECK(error_of("local b = true < false") == "t.lua:1:16: '<' needs numbers or strings, not a boolean");
    CHECK(error_of("local n = string.find(\"a\", \"b\")") ==
          "t.lua:1:11: string.find is outside Kiln's script subset (its string functions: tostring, tonumber, "
          "string.sub len upper lower rep byte char format)");
    CHECK(error_of("local s = string.sub(\"abc\")") == "t.lua:1:11: string.sub takes 2 or 3 arguments, not 1");
    CHECK(error_of("local s = string.upper(1)") ==
          "t.lua:1:24: argument 1 of string.upper must be a string, not a number");
    CHECK(error_of("local s = (1):upper()") == "t.lua:1:12: argument 1 of string.upper must be a string, not a number");
    CHECK(error_of("local s = string.format(\"%d\", \"x\")") ==
          "t.lua:1:31: string.format: '%d' needs a number, not a string");
    CHECK(error_of("local s = string.format(\"%s\", true)") ==
          "t.lua:1:31: string.format: '%s' needs a string or a number, not a boolean");
    CHECK(error_of("local s = string.format(\"%d %d\", 1)") ==
          "t.lua:1:11: string.format: the pattern has more conversions than the 1 values given");
    CHECK(error_of("local s = string.format(\"%y\", 1)") ==
          "t.lua:1:25: string.format: invalid option '%y' to 'format'");
    CHECK(error_of("local s = string.format(\"%123d\", 1)") ==
          "t.lua:1:25: string.format: invalid format (width or precision too long)");
    CHECK(error_of("local n = tonumber(true)") ==
          "t.lua:1:20: argument 1 of tonumber must be a number or a string, not a boolean");
    CHECK(error_of("local f = string.len") ==
          "t.lua:1:11: string.len used as a value: functions are not values in Kiln's script subset");
    CHECK(error_of("function tostring(x) return x end") ==
          "t.lua:1:10: 'tostring' is a library name and cannot be redefined");
    CHECK(error_of("function f(s) return s .. \"\" end") ==
          "t.lua:1:22: the type of this value is never fixed by the script, so it cannot be joined with '..'");
    CHECK(error_of("function f(a) return a end\nlocal g = f\nprint(g(1, 2))") ==
          "t.lua:3:7: 'g' is a function of 1 parameters, not a function of 2 arguments");
    CHECK(error_of("function f(a) return a end\nprint(f)") ==
          "t.lua:2:7: print of a function is outside Kiln's script subset (Lua prints its address)");
    CHECK(error_of("function f(a) return a end\nfunction g(a, b) return a end\nlocal h = f\nh = g") ==
          "t.lua:4:5: type mismatch: assigning a function of 2 parameters to a function of 1 parameters");
    CHECK(error_of("local x = 1\nlocal y = x(2)") == "t.lua:2:11: 'x' is a number, not a function of 1 arguments");
    CHECK(error_of("function outer(a)\n  function inner() return a end\nend") ==
          "t.lua:2:27: 'a' is a local of the enclosing function 'outer': a global function cannot capture it (make "
          "the function local)");
    CHECK(error_of("local f = function() return 1 end\nprint(f == f)") ==
          "t.lua:2:9: comparing functions is outside Kiln's script subset (Lua compares closures, which it creates "
          "anew)");
    CHECK(error_of("local t = {1, true}") == "t.lua:1:15: array elements must have one type: a boolean after a number");
    CHECK(error_of("local t = {{1}, {true}}") ==
          "t.lua:1:17: array elements must have one type: an array of booleans after an array of numbers");
    CHECK(error_of("local x = 1 + true") == "t.lua:1:13: '+' needs numbers, not a boolean");
    CHECK(error_of("local b = 1 == true") ==
          "t.lua:1:13: '==' compares a number with a boolean: values of different types are never equal");
    CHECK(error_of("local p = {x = 1, x = 2}") == "t.lua:1:19: field 'x' is given twice (first at 1:12)");
    CHECK(error_of("local p = {x = 1}\nprint(p.y)") == "t.lua:2:7: a record {x} has no field 'y'");
    CHECK(error_of("local p = {x = 1}\np.x = \"one\"") == "t.lua:2:7: type mismatch: assigning a string to a number");
    CHECK(error_of("local p = {x = 1}\nlocal q = {x = 1, y = 2}\np = q") ==
          "t.lua:3:5: type mismatch: assigning a record {x, y} to a record {x}");
    CHECK(error_of("local n = 5\nprint(n.x)") == "t.lua:2:7: '.x' needs a record, not a number");
    CHECK(error_of("local p = {x = 1}\nprint(p)") ==
          "t.lua:2:7: print of a record is outside Kiln's script subset (Lua prints its address)");
    CHECK(error_of("local p = {x = 1}\nlocal n = #p") ==
          "t.lua:2:11: '#' needs an array or a string, not a record {x}");
    CHECK(
        error_of("function f(p) return p.x end") ==
        "t.lua:1:22: the type of this value is never fixed by the script, so its field 'x' cannot be reached (pass it "
        "a record)");
    CHECK(error_of("function f(p) return p.x + 1 end\nprint(f({x = \"s\"}))") ==
          "t.lua:1:22: field 'x' is a string, not a number");
    CHECK(error_of("math.pi = 3") == "t.lua:1:1: cannot assign to library member 'math.pi'");
    CHECK(error_of("local p = {x = 1}\nprint(p:x())") ==
          "t.lua:2:9: 'x' is a number, not a function of 1 arguments (the object is the first)");
    CHECK(error_of("local p = {x = 1}\nprint(p:y())") == "t.lua:2:9: a record {x} has no field 'y'");
    CHECK(error_of("local n = 1\nprint(n:upper())") ==
          "t.lua:2:7: argument 1 of string.upper must be a string, not a number");
    CHECK(error_of("local x = #5") == "t.lua:1:11: '#' needs an array or a string, not a number");
    CHECK(error_of("function f(a) return a end\nlocal x = f(1, 2)") ==
          "t.lua:2:11: function 'f' takes 1 arguments, not 2 (defined at 1:10)");
    CHECK(error_of("function f(a) return a end\nlocal x = f(1)\nlocal y = f(true)") ==
          "t.lua:3:13: argument 1 of 'f' is a boolean here but a number elsewhere");
    CHECK(error_of("function f(a) if a then return 1 end end") ==
          "t.lua:1:10: function 'f' may reach its end without returning a value");
    CHECK(error_of("function f(a) if a then return 1 end return end") ==
          "t.lua:1:38: function 'f' returns a value at 1:25 but not here (nil is outside Kiln's script subset)");
    CHECK(error_of("function f() end\nlocal x = f()") == "t.lua:2:11: this call returns no value");
    CHECK(error_of("break") == "t.lua:1:1: 'break' outside a loop");
    CHECK(error_of("local t = {1}\nprint(t)") ==
          "t.lua:2:7: print of an array is outside Kiln's script subset (Lua prints its address)");
    CHECK(error_of("local x = math.random(1)") == "t.lua:1:11: unknown math function 'math.random'");
    CHECK(error_of("local x = math.floor(1, 2)") == "t.lua:1:11: math.floor takes 1 arguments");
    CHECK(error_of("local x = engine.param(1)") == "t.lua:1:11: unknown host function 'engine.param'");
    CHECK(error_of("engine.set(true)", {{"set", {Type::kNumber}, Type::kVoid}}) ==
          "t.lua:1:12: argument 1 of engine.set must be number, not a boolean");
    CHECK(error_of("local x = 1 and true") ==
          "t.lua:1:13: 'and' needs operands of one type, not a number and a boolean");
    CHECK(error_of("function f() end\nfunction f() end") ==
          "t.lua:2:10: function 'f' is defined twice (first at 1:10)");
    CHECK(error_of("local t = {}\nt.x = 1") == "t.lua:2:1: '.x' needs a record, not an array of numbers");
    CHECK(error_of("function any(xs) if xs[1] then return 1 end return 0 end") ==
          "t.lua:1:23: the type of this value is never fixed by the script, so it cannot be tested for truth "
          "(compare it with a number or a boolean to fix it)");
    CHECK(error_of("function show(x) print(x) end") ==
          "t.lua:1:24: the type of this value is never fixed by the script, so it cannot be printed");
    CHECK(error_of("function unused(x) return 1 end\nprint(unused(2))") == "(accepted)");
    CHECK(error_of("function a() return b() + 1 end\nfunction b() end\nprint(a())") ==
          "t.lua:2:10: function 'b' returns no value but a call of it is used as a number");
    CHECK(error_of("local fs = {}\nfor i = 1, 2 do\n  local function g() return i end\nend") == "(accepted)");
    CHECK(error_of("function f() return 1 end\nlocal g = f\nprint(g == f)") ==
          "t.lua:3:9: comparing functions is outside Kiln's script subset (Lua compares closures, which it creates "
          "anew)");
    CHECK(error_of("local function g() return 1 end\nfunction g() return 2 end") ==
          "t.lua:2:10: 'function g' would assign the local 'g' declared at 1:16; redefining a local is outside Kiln's "
          "script subset");
    CHECK(error_of("function f(a) return a[1][1] + a[1] end") ==
          "t.lua:1:30: '+' needs numbers, not an array of numbers");
    {
      std::string many = "function f()\n";
      for (int i = 0; i < 201; ++i) many += "  local v" + std::to_string(i) + " = " + std::to_string(i) + "\n";
      many += "end\n";
      CHECK(error_of(many) == "t.lua:202:9: too many local variables (more than 200 in one function)");
    }
    CHECK(error_of("return 1") == "t.lua:1:1: the chunk cannot return a value in Kiln's script subset");
  }

  TEST_CASE("Lua's idioms that type: c and x or y - truthiness in conditions - swaps") {
    CHECK(error_of("local a = 3\nlocal m = a > 2 and a or 0\nif a then a = m end\nlocal b = 1\na, b = b, a") ==
          "(accepted)");
    CHECK(error_of("local t = {1}\nlocal u = #t > 0 and t or {2}") == "(accepted)");
    CHECK(error_of("local f = true\nlocal g = f and false or true") == "(accepted)");
    CHECK(error_of("local n = 1\nlocal g = n > 0 and false or true") == "(accepted)");
    // A name declared after a function is not visible in it, as in Lua.
    CHECK(error_of("function f() return later end\nlocal later = 1") == "t.lua:1:21: unknown name 'later'");
  }
}
