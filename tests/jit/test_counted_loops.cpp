#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kiln/jit/counted_loops.h"
#include "kiln/lang/script.h"

using namespace kiln;
using namespace kiln::jit;

namespace {

// The counted loops of the first page of function `name` in `source`.
std::vector<CountedLoop> loops_of(const std::string& source, const std::string& name) {
  auto program = lang::compile_script("loops.lua", source);
  REQUIRE_MESSAGE(program, program.error().message);
  for (const FunctionCode& f : program->functions) {
    if (f.name != name) continue;
    const std::span<const std::uint32_t> page = program->page(f.first_page);
    const std::vector<std::uint16_t> entries = jit_entries(page, program->entries[f.first_page]);
    return counted_loops(page, analyze_page(page, entries));
  }
  FAIL("no function " << name);
  return {};
}

std::vector<unsigned> access_ops(const std::vector<CountedLoop>& loops, const std::string& source,
                                 const std::string& name) {
  auto program = lang::compile_script("loops.lua", source);
  std::vector<unsigned> ops;
  for (const FunctionCode& f : program->functions)
    if (f.name == name)
      for (const CountedLoop& loop : loops)
        for (const IndexedAccess& access : loop.accesses)
          ops.push_back(unsigned(op_of(program->page(f.first_page)[access.at])));
  return ops;
}

}  // namespace

TEST_SUITE("jit") {
  TEST_CASE("counted loops - accesses indexed by the loop variable - nothing in the body may change it") {
    // The variable (through the local the body copies it to) indexes two arrays, one read, one
    // written; an index computed from it is not the variable.
    const std::string sum =
        "local function f(t, u, n)\n"
        "  local s = 0\n"
        "  for i = 1, n do s = s + t[i] u[i] = s s = s + t[i + 1] end\n"
        "  return s\n"
        "end\n";
    const std::vector<CountedLoop> loops = loops_of(sum, "f");
    REQUIRE(loops.size() == 1);
    CHECK(loops[0].arrays == std::vector<std::uint8_t>{0, 1});  // t and u: the first two registers
    CHECK(loops[0].accesses.size() == 2);
    CHECK(access_ops(loops, sum, "f") == std::vector<unsigned>{unsigned(Op::kGetI), unsigned(Op::kSetI)});
    CHECK(loops[0].index.test(loops[0].base + 3));
    CHECK(loops[0].index.count() == 2);  // the variable and the local `i`
    CHECK(loops[0].in_body(loops[0].loop));
    CHECK_FALSE(loops[0].in_body(loops[0].prep));

    // The local assigned in the body, the array register assigned in the body: no access qualifies.
    CHECK(loops_of("local function f(t, n)\n  local s = 0\n"
                   "  for i = 1, n do i = i + 0 s = s + t[i] end\n  return s\nend\n",
                   "f")
              .empty());
    CHECK(loops_of("local function f(t, u, n)\n  local s = 0\n"
                   "  for i = 1, n do s = s + t[i] t = u end\n  return s\nend\n",
                   "f")
              .empty());
    // Nested loops: each access belongs to the loop whose variable indexes it.
    const std::vector<CountedLoop> nested = loops_of(
        "local function f(t, u, n)\n  local s = 0\n"
        "  for i = 1, n do for j = 1, n do s = s + t[i] * u[j] end end\n  return s\nend\n",
        "f");
    REQUIRE(nested.size() == 2);
    CHECK(nested[0].prep < nested[1].prep);
    CHECK(nested[0].arrays == std::vector<std::uint8_t>{0});
    CHECK(nested[1].arrays == std::vector<std::uint8_t>{1});
    // A call in the body: its frame starts above the loop's registers and the array's.
    const std::vector<CountedLoop> called = loops_of(
        "local function g(a) return #a end\n"
        "local function f(t, n)\n  local s = 0\n  for i = 1, n do s = s + t[i] + g(t) end\n  return s\nend\n",
        "f");
    REQUIRE(called.size() == 1);
    CHECK(called[0].accesses.size() == 1);
  }

  TEST_CASE("counted loops - a jump into the body from outside the loop or a write of its registers disqualifies it") {
    std::vector<std::uint32_t> page(kPageWords, 0);
    std::size_t k = 0;
    auto put = [&](std::uint32_t w) { page[k++] = w; };
    // 0: FORPREP r2 -> 4; 1: MOVE r6 r5; 2: GETI r7 r0 r6; 3: ADD r1 r1 r7; 4: FORLOOP r2 -> 1; 5: RET r1
    put(encode_ad(Op::kForPrep, 2, 3));
    put(encode_abc(Op::kMove, 6, 5, 0));
    put(encode_abc(Op::kGetI, 7, 0, 6));
    put(encode_abc(Op::kAdd, 1, 1, 7));
    put(encode_ad(Op::kForLoop, 2, -4));
    put(encode_abc(Op::kRet, 1, 0, 0));
    const std::uint16_t entry = 0;
    auto loops = [&] { return counted_loops(page, analyze_page(page, std::span<const std::uint16_t>(&entry, 1))); };
    REQUIRE(loops().size() == 1);
    CHECK(loops()[0].accesses.size() == 1);
    CHECK(loops()[0].accesses[0].at == 2);
    CHECK(loops()[0].accesses[0].array == 0);

    // The limit written in the body.
    page[3] = encode_abc(Op::kAdd, 3, 1, 7);
    CHECK(loops().empty());
    // The copy of the variable written again in the body: the access's index is not the variable.
    page[3] = encode_abc(Op::kAdd, 6, 1, 7);
    CHECK(loops().empty());
    page[3] = encode_abc(Op::kAdd, 1, 1, 7);
    REQUIRE(loops().size() == 1);
    // A call in the body whose frame covers the array's register (or the loop's).
    page[3] = encode_ad(Op::kCall, 0, 0);
    CHECK(loops().empty());
    page[3] = encode_ad(Op::kCall, 4, 0);
    CHECK(loops().empty());
    page[3] = encode_ad(Op::kCall, 8, 0);  // above them all
    REQUIRE(loops().size() == 1);
    page[3] = encode_abc(Op::kAdd, 1, 1, 7);
    // A FORLOOP of another base, or jumping elsewhere: not this loop's.
    page[4] = encode_ad(Op::kForLoop, 3, -4);
    CHECK(loops().empty());
    page[4] = encode_ad(Op::kForLoop, 2, -3);
    CHECK(loops().empty());
    page[4] = encode_ad(Op::kForLoop, 2, -4);
    REQUIRE(loops().size() == 1);
    // A jump from after the loop into its body.
    page[5] = encode_ad(Op::kJmp, 0, -4);  // 5: JMP -> 2
    page[6] = encode_abc(Op::kRet, 1, 0, 0);
    CHECK(loops().empty());
  }

  TEST_CASE("counted loops - a jump from before the loop into its body disqualifies it") {
    std::vector<std::uint32_t> page(kPageWords, 0);
    // 0: JMPIF r1 -> 3; 1: FORPREP r2 -> 5; 2: MOVE r6 r5; 3: GETI r7 r0 r6; 4: ADD r1 r1 r7;
    // 5: FORLOOP r2 -> 2; 6: RET r1
    page[0] = encode_ad(Op::kJmpIf, 1, 2);
    page[1] = encode_ad(Op::kForPrep, 2, 3);
    page[2] = encode_abc(Op::kMove, 6, 5, 0);
    page[3] = encode_abc(Op::kGetI, 7, 0, 6);
    page[4] = encode_abc(Op::kAdd, 1, 1, 7);
    page[5] = encode_ad(Op::kForLoop, 2, -4);
    page[6] = encode_abc(Op::kRet, 1, 0, 0);
    const std::uint16_t entry = 0;
    auto loops = [&] { return counted_loops(page, analyze_page(page, std::span<const std::uint16_t>(&entry, 1))); };
    CHECK(loops().empty());
    page[0] = encode_ad(Op::kJmpIf, 1, 5);  // 0: JMPIF r1 -> 6, past the loop
    REQUIRE(loops().size() == 1);
    CHECK(loops()[0].prep == 1);
    CHECK(loops()[0].accesses.size() == 1);
  }
}
