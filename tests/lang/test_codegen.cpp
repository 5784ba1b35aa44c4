#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kiln/jit/page_analysis.h"
#include "script_code.h"

using namespace kiln;
using namespace kiln::jit;

namespace {

// The instructions of the script's function `name`, in order (their first words).
std::vector<std::uint32_t> instructions(const std::string& source, const std::string& name) {
  const std::vector<std::uint32_t> code = test::function_code(source, name);
  std::vector<std::uint32_t> out;
  for (std::size_t k = 0; k < code.size(); k += instruction_words(code, k)) out.push_back(code[k]);
  return out;
}

std::size_t count(const std::vector<std::uint32_t>& code, Op op) {
  return std::size_t(std::count_if(code.begin(), code.end(), [&](std::uint32_t w) { return op_of(w) == op; }));
}

}  // namespace

TEST_SUITE("lang") {
  TEST_CASE("number literals are operands - no register is loaded for them") {
    const auto code = instructions(
        "function f(n)\n  if n < 2 then return n end\n  if 0 < n and n ~= 7 then return n * 0.5 + 1 end\n"
        "  return (n - 1) / 4\nend\nprint(f(3))\n",
        "f");
    CHECK(count(code, Op::kLoadN) == 0);
    CHECK(count(code, Op::kJNotLtK) == 1);  // n < 2
    CHECK(count(code, Op::kJNotGtK) == 1);  // 0 < n is n > 0
    CHECK(count(code, Op::kJEqK) == 1);     // n ~= 7
    CHECK(count(code, Op::kMulK) == 1);
    CHECK(count(code, Op::kAddK) == 1);
    CHECK(count(code, Op::kSubK) == 1);
    CHECK(count(code, Op::kDivK) == 1);
    // A literal on the left of - or / is not an operand of those (they do not commute).
    CHECK(count(instructions("function g(n) return 1 - n end\nprint(g(2))\n", "g"), Op::kLoadN) == 1);
  }

  TEST_CASE("a call's result lands where it is wanted - a function value in a local is called in place") {
    const auto code = instructions(
        "function twice(x) return x * 2 end\n"
        "function map(f, src, dst)\n  for i = 1, #src do dst[i] = f(src[i]) end\nend\n"
        "local a, b = {1, 2}, {0, 0}\nmap(twice, a, b)\nprint(b[2])\n",
        "map");
    REQUIRE(count(code, Op::kCallR) == 1);
    const auto call = std::find_if(code.begin(), code.end(), [](std::uint32_t w) { return op_of(w) == Op::kCallR; });
    CHECK(b_of(*call) == 0);                 // f is parameter 0: no copy of it
    CHECK(op_of(*(call + 1)) == Op::kSetI);  // the result is stored from where the call left it
    CHECK(c_of(*(call + 1)) == a_of(*call));
  }
}
