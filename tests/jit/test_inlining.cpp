#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kiln/jit/inlining.h"
#include "kiln/jitc/llvm_page_compiler.h"
#include "kiln/lang/script.h"
#include "script_code.h"

using namespace kiln;
using namespace kiln::jit;

namespace {

// A page that calls function 1 (an empty chunk's first page: its words past the call are zero).
std::vector<std::uint32_t> calling_page() {
  std::vector<std::uint32_t> page(kPageWords, 0);
  page[0] = encode_ad(Op::kCall, 0, 1);
  page[1] = encode_abc(Op::kRet0, 0, 0, 0);
  return page;
}

}  // namespace

TEST_SUITE("jit") {
  TEST_CASE("small leaves are inlined - calls - loops - stores - output and long code are not") {
    auto leaf = [](const std::string& body) {
      return test::function_code("function f(a, x)\n" + body + "\nend\nprint(f({1, 2, 3}, 2))\n", "f");
    };
    CHECK(inlinable(leaf("return x * x + 1")));
    CHECK(inlinable(leaf("if x < 1 then return 1 end\nif x > 3 then return 3 end\nreturn x")));
    CHECK(inlinable(leaf("return a[x] + #a")));
    CHECK(inlinable(leaf("return math.sqrt(x) + math.max(x, 2)")));
    CHECK_FALSE(inlinable(leaf("local s = 0\nfor i = 1, x do s = s + i end\nreturn s")));  // a loop
    CHECK_FALSE(inlinable(leaf("a[1] = x\nreturn x")));                                    // a store
    CHECK_FALSE(inlinable(leaf("print(x)\nreturn x")));                                    // output
    CHECK_FALSE(inlinable(leaf("if x > 5 then return x end\nreturn f(a, x + 1)")));        // a call
    std::string sum = "return x";
    for (int i = 0; i < 30; ++i) sum += " + " + std::to_string(i) + ".5";  // a LOADN and an ADD each
    CHECK_FALSE(inlinable(leaf(sum)));
    CHECK_FALSE(inlinable({}));
  }

  TEST_CASE("a page's key words hold exactly the callees it inlines") {
    auto program = lang::compile_script("keys.lua",
                                        "function sq(x) return x * x end\n"
                                        "function loop(x) local s = 0 for i = 1, x do s = s + i end return s end\n"
                                        "print(sq(3) + loop(3) + sq(4))\n");
    REQUIRE(program);
    const std::vector<std::uint32_t> key = page_key_words(*program, 0, value_callees(*program));
    auto callees = inline_callees(key);
    REQUIRE_MESSAGE(callees, callees.error().message);
    REQUIRE(callees->size() == 1);  // sq once, loop not at all
    CHECK(program->functions[(*callees)[0].function].name == "sq");
    CHECK((*callees)[0].params == 1);
    CHECK(std::equal((*callees)[0].code.begin(), (*callees)[0].code.end(), program->code(1)));
    CHECK(key.size() == kPageWords + 3 + program->functions[1].words);
  }

  TEST_CASE("a call through a function value inlines the leaves whose value is taken with its argument count") {
    auto program =
        lang::compile_script("values.lua",
                             "local function neg(x) return -x end\n"
                             "local function twice(x) return x + x end\n"
                             "local function add(a, b) return a + b end\n"
                             "local function sq(x) return x * x end\n"  // called by name only
                             "local function long(x) local s = 0 for i = 1, x do s = s + i end return s end\n"
                             "local function apply(f, x) return f(x) + sq(x) end\n"
                             "print(apply(neg, 2) + apply(twice, 3) + apply(long, 4) + add(1, 2))\n"
                             "local g = add\n");
    REQUIRE_MESSAGE(program, program.error().message);
    auto index = [&](const std::string& name) {
      for (std::size_t f = 0; f < program->functions.size(); ++f)
        if (program->functions[f].name == name) return std::uint32_t(f);
      FAIL("no function " << name);
      return 0u;
    };
    const ValueCallees values = value_callees(*program);
    REQUIRE(values.by_params.size() == 3);
    CHECK(values.by_params[1] == std::vector<std::uint32_t>{index("neg"), index("twice")});  // not sq, not long
    CHECK(values.by_params[2] == std::vector<std::uint32_t>{index("add")});

    const std::size_t apply_page = program->functions[index("apply")].first_page;
    const std::vector<std::uint32_t> key = page_key_words(*program, apply_page, values);
    auto callees = inline_callees(key);
    REQUIRE_MESSAGE(callees, callees.error().message);
    std::vector<std::pair<std::string, bool>> got;
    for (const InlineCallee& c : *callees) got.emplace_back(program->functions[c.function].name, c.for_values);
    // neg and twice for the call through f (one argument), sq for the call by name; not add (two).
    CHECK(got == std::vector<std::pair<std::string, bool>>{{"neg", true}, {"twice", true}, {"sq", false}});

    // More leaves of one argument count than are inlined at one call: none of them is.
    ValueCallees crowded = values;
    while (crowded.by_params[1].size() <= kMaxValueCallees) crowded.by_params[1].push_back(index("neg"));
    auto none = inline_callees(page_key_words(*program, apply_page, crowded));
    REQUIRE(none);
    REQUIRE(none->size() == 1);
    CHECK(program->functions[(*none)[0].function].name == "sq");
  }

  TEST_CASE("a helper that calls leaves is inlined with them - one level deep") {
    auto program = lang::compile_script("nested.lua",
                                        "local function dot(ax, ay, bx, by) return ax * bx + ay * by end\n"
                                        "local function len(x, y) return math.sqrt(dot(x, y, x, y)) end\n"
                                        "local function len2(x) return len(x, x) end\n"  // calls a non-leaf
                                        "local function down(n) if n < 1 then return 0 end return down(n - 1) end\n"
                                        "print(len(3, 4) + len2(1) + down(2))\n");
    REQUIRE_MESSAGE(program, program.error().message);
    CHECK(inlinable_calling_leaves(*program, 2) == std::vector<std::uint32_t>{1});  // len calls dot
    CHECK_FALSE(inlinable_calling_leaves(*program, 1));                             // dot calls nothing: a plain leaf
    CHECK_FALSE(inlinable_calling_leaves(*program, 3));                             // len2 calls len, which is no leaf
    CHECK_FALSE(inlinable_calling_leaves(*program, 4));                             // down calls itself
    auto callees = inline_callees(page_key_words(*program, 0, value_callees(*program)));
    REQUIRE_MESSAGE(callees, callees.error().message);
    std::vector<std::string> names;
    for (const InlineCallee& c : *callees) names.push_back(program->functions[c.function].name);
    CHECK(names == std::vector<std::string>{"dot", "len"});  // not len2, not down
  }

  TEST_CASE("the compiler refuses malformed key words with a message - never compiles them") {
    jitc::LlvmPageCompiler compiler;
    const std::vector<std::uint32_t> leaf = test::function_code("function f(x) return x + 1 end\nprint(f(1))\n", "f");
    auto compile = [&](std::vector<std::uint32_t> words) {
      return compiler.compile({words, {0}, abi::JitMode::kChecked});
    };
    auto with_tail = [&](std::vector<std::uint32_t> tail) {
      std::vector<std::uint32_t> words = calling_page();
      words.insert(words.end(), tail.begin(), tail.end());
      return words;
    };
    std::vector<std::uint32_t> good = {1, 1, std::uint32_t(leaf.size())};
    good.insert(good.end(), leaf.begin(), leaf.end());
    auto compiled = compile(with_tail(good));
    REQUIRE_MESSAGE(compiled, compiled.error().message);
    CHECK(compiled->entries == std::vector<std::uint16_t>{0});

    auto refused = [&](std::vector<std::uint32_t> words, const std::string& problem) {
      auto r = compile(std::move(words));
      REQUIRE_FALSE(r);
      CHECK_MESSAGE(r.error().message.find(problem) != std::string::npos, r.error().message);
    };
    refused(std::vector<std::uint32_t>(100, 0), "a page has 1024 words");
    refused(with_tail({1, 1}), "truncated");
    refused(with_tail({1, 1, 5000}), "code runs past the key");
    refused(with_tail({1, 300, 1, encode_abc(Op::kRet0, 0, 0, 0)}), "300 parameters");
    refused(with_tail({1, 1, 1, encode_ad(Op::kCall, 0, 1)}), "code that is not inlined");
    // A record that calls: only with a leaf record for what it calls.
    const std::vector<std::uint32_t> caller = {encode_ad(Op::kCall, 0, 2), encode_abc(Op::kRet, 0, 0, 0)};
    std::vector<std::uint32_t> calls_leaf = {1, 1, std::uint32_t(caller.size())};
    calls_leaf.insert(calls_leaf.end(), caller.begin(), caller.end());
    std::vector<std::uint32_t> with_leaf = calls_leaf;
    with_leaf.insert(with_leaf.end(), {2, 1, std::uint32_t(leaf.size())});
    with_leaf.insert(with_leaf.end(), leaf.begin(), leaf.end());
    auto nested = compile(with_tail(with_leaf));
    CHECK_MESSAGE(nested, (nested ? "" : nested.error().message));
    refused(with_tail(calls_leaf), "calls function 2, which is not an inlined leaf");
    std::vector<std::uint32_t> calls_caller = calls_leaf;  // function 2 calls too: no leaf
    calls_caller.insert(calls_caller.end(), {2, 1, std::uint32_t(caller.size())});
    calls_caller.insert(calls_caller.end(), caller.begin(), caller.end());
    refused(with_tail(calls_caller), "which is not an inlined leaf");
    std::vector<std::uint32_t> twice = good;
    twice.insert(twice.end(), good.begin(), good.end());
    refused(with_tail(twice), "out of order");
  }
}
