#include <doctest/doctest.h>

#include "kiln/lang/parser.h"

using namespace kiln;
using namespace kiln::lang;

namespace {

std::string error_of(const std::string& source) {
  auto r = parse_script("t.lua", source);
  return r ? std::string("(accepted)") : r.error().message;
}

}  // namespace

TEST_SUITE("lang") {
  TEST_CASE("the parser accepts every construct of the subset") {
    const char* source = R"(
-- comment
--[[ long
comment ]]
local a, b = 1, 2.5e3
local t = {1, 2, 3; 4}
local flags = {true, false}
local h = 0x1F
function fib(n)
  if n < 2 then return n elseif n == 2 then return 1 else return fib(n - 1) + fib(n - 2) end
end
local function sq(x) return x * x end
while a < 10 do a = a + 1 end
repeat b = b - 1 until b <= 0 or not (a ~= 3)
for i = 1, #t do t[i] = t[i] ^ 2 % 7 end
for i = 10, 1, -2 do do break end end
a, b = b, a
t[#t + 1] = -a
print("x", fib(10), math.floor(2.5), [[long string]])
return
)";
    auto r = parse_script("t.lua", source);
    REQUIRE_MESSAGE(r, r.error().message);
    CHECK(r->body.size() == 14);
    REQUIRE(r->body[4]->kind == StmtKind::kFunction);
    CHECK(r->body[4]->function->params == std::vector<std::string>{"n"});
    CHECK(r->body[5]->function->is_local);
    CHECK(r->body.back()->kind == StmtKind::kReturn);
  }

  TEST_CASE("operator precedence and associativity are Lua's") {
    auto r = parse_script("t.lua", "x = 1 + 2 * 3 ^ 2 ^ 2 == -2 ^ 2 and not a or b");
    REQUIRE(r);
    const Expr& e = *r->body[0]->values[0];
    REQUIRE(e.kind == ExprKind::kBinary);
    CHECK(e.binop == BinOp::kOr);
    const Expr& conj = *e.a;
    CHECK(conj.binop == BinOp::kAnd);
    const Expr& eq = *conj.a;
    CHECK(eq.binop == BinOp::kEq);
    // 2 ^ 2 ^ 2 is right-associative, and ^ binds tighter than unary minus.
    const Expr& sum = *eq.a;
    CHECK(sum.binop == BinOp::kAdd);
    const Expr& pow = *sum.b->b;
    CHECK(pow.binop == BinOp::kPow);
    CHECK(pow.b->binop == BinOp::kPow);
    CHECK(eq.b->kind == ExprKind::kUnary);
    CHECK(eq.b->a->binop == BinOp::kPow);
  }

  TEST_CASE("constructs outside the subset are rejected by name at file:line:col") {
    CHECK(error_of("local x = nil") ==
          "t.lua:1:11: nil is outside Kiln's script subset (values are numbers, booleans and arrays)");
    CHECK(error_of("function f(...) end") == "t.lua:1:12: varargs (...) are outside Kiln's script subset");
    CHECK(error_of("goto done") == "t.lua:1:1: goto and labels are outside Kiln's script subset");
    CHECK(error_of("::done::") == "t.lua:1:1: goto and labels are outside Kiln's script subset");
    CHECK(error_of("local s = s:upper") == "t.lua:1:18: expected '(' after the method name");
    CHECK(error_of("for k, v in pairs(t) do end") ==
          "t.lua:1:6: generic for (for ... in ...) is outside Kiln's script subset; use a numeric for");
    CHECK(error_of("local t = {x = 1, 2}") ==
          "t.lua:1:19: a table is an array {a, b} or a record {x = a, y = b}, not both");
    CHECK(error_of("local t = {1, x = 2}") ==
          "t.lua:1:15: a table is an array {a, b} or a record {x = a, y = b}, not both");
    CHECK(error_of("local t = {[1] = 1}") ==
          "t.lua:1:12: computed keys ([k] = v) are outside Kiln's script subset; a record's fields are written "
          "{x = a, y = b}");
    CHECK(error_of("local f = function(...) end") == "t.lua:1:20: varargs (...) are outside Kiln's script subset");
    CHECK(error_of("local f = function(a) return a") ==
          "t.lua:1:31: expected 'end' to close 'function' near end of file");
    CHECK(error_of("obj:()") == "t.lua:1:5: expected a name after ':' near '('");
    CHECK(error_of("print \"x\"") ==
          "t.lua:1:7: calls without parentheses (f\"x\", f{...}) are outside Kiln's script subset");
    CHECK(error_of("function a.b() end") ==
          "t.lua:1:11: function names with '.' or ':' (methods, table fields) are outside Kiln's script subset");
    CHECK(error_of("function f() return 1, 2 end") ==
          "t.lua:1:22: returning more than one value is outside Kiln's script subset");
  }

  TEST_CASE("malformed input gives a located syntax error - never a crash") {
    CHECK(error_of("x = 3x") == "t.lua:1:5: malformed number near '3x'");
    CHECK(error_of("x = \"abc") == "t.lua:1:5: unfinished string");
    CHECK(error_of("x = 'a\\qb'") == "t.lua:1:7: invalid escape sequence '\\q'");
    CHECK(error_of("--[[ never closed") == "t.lua:1:1: unfinished long comment");
    CHECK(error_of("x = [[ never closed") == "t.lua:1:5: unfinished long string");
    CHECK(error_of("x = 1 @ 2") == "t.lua:1:7: unexpected symbol '@'");
    CHECK(error_of("if x then") == "t.lua:1:10: expected 'end' to close 'if' near end of file");
    CHECK(error_of("while true x = 1 end") == "t.lua:1:12: expected 'do' after the 'while' condition near name 'x'");
    CHECK(error_of("x = (1 + 2") == "t.lua:1:11: expected ')' to close '(' near end of file");
    CHECK(error_of("f(1,)") == "t.lua:1:5: unexpected ')'");
    CHECK(error_of("x") == "t.lua:1:1: syntax error: a statement must be an assignment or a call");
    CHECK(error_of("return 1\nx = 2") == "t.lua:2:1: 'return' must be the last statement of a block");
    CHECK(error_of("1 = 2") == "t.lua:1:1: unexpected number 1");
    CHECK(error_of("f() = 1") == "t.lua:1:1: cannot assign to this expression");
    CHECK(error_of(std::string("x = 1\x01")) == "t.lua:1:6: unexpected byte 1");
    // Nesting is bounded (as Lua bounds it at 200 C levels), so no input can exhaust the stack.
    CHECK(error_of("x = " + std::string(150, '(') + "1" + std::string(150, ')')) == "(accepted)");
    CHECK(error_of("x = " + std::string(100000, '(') + "1" + std::string(100000, ')')) ==
          "t.lua:1:204: nesting too deep (more than 200 levels)");
    std::string chain = "x = true";
    for (int i = 0; i < 50000; ++i) chain += " and true";
    CHECK(error_of(chain).find("expression too long (more than 1000 operators in a chain)") != std::string::npos);
    std::string calls = "f()";
    for (int i = 0; i < 50000; ++i) calls += "()";
    CHECK(error_of(calls).find("expression too long") != std::string::npos);
    std::string sum = "x = 1";
    for (int i = 0; i < 500; ++i) sum += " + 1";
    CHECK(error_of(sum) == "(accepted)");
    std::string blocks;
    for (int i = 0; i < 100000; ++i) blocks += "do ";
    CHECK(error_of(blocks).find("nesting too deep") != std::string::npos);
  }
}
