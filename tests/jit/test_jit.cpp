#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <tuple>

#include "kiln/lang/script.h"
#include "kiln/jit/vm.h"
#include "kiln/jitc/llvm_page_compiler.h"
#include "jit_store.h"
#include "temp_dir.h"

using namespace kiln;
using namespace kiln::jit;
using namespace kiln::lang;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> corpus() {
  std::vector<fs::path> scripts;
  for (const auto& e : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "tests/jit/scripts"))
    if (e.path().extension() == ".lua") scripts.push_back(e.path());
  std::sort(scripts.begin(), scripts.end());
  return scripts;
}

std::string run(const Program& program, JitRuntime* jit, abi::JitMode mode = abi::JitMode::kChecked) {
  std::string out;
  Vm vm(program,
        {.instruction_budget = mode == abi::JitMode::kChecked ? 2'000'000'000u : 0u, .jit = jit, .jit_mode = mode});
  vm.set_output([&](std::string_view line) { out += line; });
  if (auto s = vm.run(); !s) out += "RUNTIME ERROR: " + s.error().message;
  return out;
}

// What `source` prints (and the error it ends with) interpreted, then with every page compiled from
// its first entry (or loaded from `cache`).
std::pair<std::string, std::string> interpreted_and_compiled(PageCompiler& compiler, const fs::path& cache,
                                                             const std::string& source, VmOptions options) {
  auto program = compile_script("calls.lua", source);
  REQUIRE_MESSAGE(program, program.error().message);
  auto jit = test::stored_runtime({.compiler = &compiler, .synchronous = true, .hot_threshold = 1}, cache);
  std::pair<std::string, std::string> out;
  for (JitRuntime* runtime : {static_cast<JitRuntime*>(nullptr), jit.get()}) {
    std::string& text = runtime ? out.second : out.first;
    options.jit = runtime;
    Vm vm(*program, options);
    vm.set_output([&](std::string_view line) { text += line; });
    if (auto s = vm.run(); !s) text += "ERROR: " + s.error().message;
  }
  CHECK(jit->stats().compiled + jit->stats().loaded >= 1);
  return out;
}

}  // namespace

TEST_SUITE("jit") {
  TEST_CASE("every corpus script prints the same interpreted - compiled cold - and loaded warm") {
    test::TempDir dir("jit");
    jitc::LlvmPageCompiler compiler;
    for (const auto& script : corpus()) {
      CAPTURE(script.filename().string());
      auto program = compile_script_file(script.string());
      REQUIRE_MESSAGE(program, program.error().message);
      const std::string interpreted = run(*program, nullptr);
      JitStats cold_stats, warm_stats;
      {
        auto cold =
            test::stored_runtime({.compiler = &compiler, .synchronous = true, .hot_threshold = 1}, dir / "cache");
        CHECK(run(*program, cold.get()) == interpreted);
        cold->flush();
        cold_stats = cold->stats();
      }
      {
        auto warm =
            test::stored_runtime({.compiler = &compiler, .synchronous = true, .hot_threshold = 1}, dir / "cache");
        CHECK(run(*program, warm.get()) == interpreted);
        warm_stats = warm->stats();
      }
      CHECK(cold_stats.compiled >= 1);
      CHECK(warm_stats.compiled == 0);
      // Every page the cold run compiled or found (the cache is shared by the corpus: another script's
      // page of the same bytes) is loaded by the warm one.
      CHECK_MESSAGE(warm_stats.loaded == cold_stats.stored + cold_stats.loaded, cold_stats.summary()
                                                                                    << " / " << warm_stats.summary());
    }
  }

  TEST_CASE("a function value's inlined callee stops - out of range or out of budget - as the interpreter does") {
    test::TempDir dir("jit");
    jitc::LlvmPageCompiler compiler;
    auto both = [&](const std::string& source, VmOptions options) {
      return interpreted_and_compiled(compiler, dir / "cache", source, options);
    };
    const std::string apply =
        "local function at(t, i)\n  return t[i]\nend\n"
        "local function twice(x) return x + x end\n"
        "local function apply(f, t, i) return f(t, i) end\n";
    auto [interpreted, compiled] = both(apply + "local t = {1, 2, 3}\nfor i = 1, 5 do print(apply(at, t, i)) end\n",
                                        {.instruction_budget = 1'000'000});
    CHECK(interpreted ==
          "1\n2\n3\nERROR: calls.lua:2: array index 4 out of range (size 3; nil is outside Kiln's "
          "script subset)");
    CHECK(compiled == interpreted);
    // Every budget from too small for one call to enough for the loop: the same output, and the
    // same error at the same place, compiled or not.
    const std::string loop =
        "local function map(f, n) local s = 0 for i = 1, n do s = s + f(i) end return s end\n"
        "print(map(twice, 30))\nprint(map(twice, 40))\n";
    for (std::uint64_t budget = 20; budget < 400; budget += 7) {
      CAPTURE(budget);
      auto [i, c] = both(apply + loop, {.instruction_budget = budget});
      CHECK(c == i);
    }
  }

  TEST_CASE("a leaf inlined inside an inlined helper stops - range - budget - call depth - as the interpreter does") {
    test::TempDir dir("jit");
    jitc::LlvmPageCompiler compiler;
    auto both = [&](const std::string& source, VmOptions options) {
      return interpreted_and_compiled(compiler, dir / "cache", source, options);
    };
    const std::string helpers =
        "local function at(t, i)\n  return t[i]\nend\n"
        "local function pair(t, i) return at(t, i) + at(t, i + 1) end\n";
    auto [interpreted, compiled] = both(helpers + "local t = {1, 2, 3}\nfor i = 1, 4 do print(pair(t, i)) end\n",
                                        {.instruction_budget = 1'000'000});
    CHECK(interpreted ==
          "3\n5\nERROR: calls.lua:2: array index 4 out of range (size 3; nil is outside Kiln's "
          "script subset)");
    CHECK(compiled == interpreted);
    const std::string loop =
        "local function sum(t, n) local s = 0 for i = 1, n do s = s + pair(t, i) end return s end\n"
        "local t = {}\nfor i = 1, 40 do t[#t + 1] = i end\nprint(sum(t, 39))\nprint(sum(t, 20))\n";
    for (std::uint64_t budget = 40; budget < 420; budget += 5) {  // runs out at every kind of tick
      CAPTURE(budget);
      auto [i, c] = both(helpers + loop, {.instruction_budget = budget});
      CHECK(c == i);
    }
    // A call depth that leaves room for the helper but not for the leaf inside it, and around it
    // (the recursion is not in tail position, so each level takes a frame).
    const std::string deep =
        "local function down(n, t) if n < 1 then return pair(t, 1) end return 0 + down(n - 1, t) end\n"
        "local t = {1, 2, 3}\nprint(down(6, t))\n";
    for (std::size_t depth = 4; depth < 14; ++depth) {
      CAPTURE(depth);
      auto [i, c] = both(helpers + deep, {.max_call_depth = int(depth), .instruction_budget = 1'000'000});
      CHECK(c == i);
    }
  }

  TEST_CASE(
      "a function calling itself from its compiled page stops - printing - range - budget - call depth - as the "
      "interpreter does") {
    test::TempDir dir("jit");
    jitc::LlvmPageCompiler compiler;
    auto both = [&](const std::string& source, VmOptions options) {
      return interpreted_and_compiled(compiler, dir / "cache", source, options);
    };
    // The callee's print stops it at one depth (the interpreter finishes that call), its bottom
    // reads t[n + k] (k = 2: out of range, an error raised deep inside the recursion).
    auto walk = [](int k) {
      return "local function walk(n, t)\n"
             "  if n == 5 then print(n) end\n"
             "  if n < 1 then return t[n + " +
             std::to_string(k) +
             "] end\n"
             "  return 1 + walk(n - 1, t)\n"
             "end\n"
             "local t = {7}\nprint(walk(12, t))\nprint(walk(3, t))\n";
    };
    auto [interpreted, compiled] = both(walk(1), {.instruction_budget = 1'000'000});
    CHECK(interpreted == "5\n19\n10\n");
    CHECK(compiled == interpreted);
    std::tie(interpreted, compiled) = both(walk(2), {.instruction_budget = 1'000'000});
    CHECK(interpreted ==
          "5\nERROR: calls.lua:3: array index 2 out of range (size 1; nil is outside Kiln's script subset)");
    CHECK(compiled == interpreted);
    const std::string fib =
        "local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end\n"
        "print(fib(12))\nprint(fib(9))\n";
    std::tie(interpreted, compiled) = both(fib, {.instruction_budget = 1'000'000});
    CHECK(interpreted == "144\n34\n");
    CHECK(compiled == interpreted);
    for (std::uint64_t budget = 10; budget < 1200; budget += 13) {  // runs out at every depth
      CAPTURE(budget);
      auto [i, c] = both(fib, {.instruction_budget = budget});
      CHECK(c == i);
    }
    for (std::size_t depth = 2; depth < 16; ++depth) {
      CAPTURE(depth);
      auto [i, c] = both(walk(1), {.max_call_depth = int(depth), .instruction_budget = 1'000'000});
      CHECK(c == i);
    }
  }

  TEST_CASE(
      "arrays indexed by a counted loop's variable stop out of range - past either end - fractional - grown in the "
      "loop - as the interpreter does") {
    test::TempDir dir("jit");
    jitc::LlvmPageCompiler compiler;
    auto both = [&](const std::string& source, VmOptions options = {.instruction_budget = 1'000'000}) {
      return interpreted_and_compiled(compiler, dir / "cache", source, options);
    };
    // Each loop indexes t by its variable in a function of its own: `f` (a page entered at its start,
    // the loop's range checked at its FORPREP), `g` with a print in the body (the page entered again
    // inside the loop after each print), `h` after a print (the interpreter starts the loop, the page
    // is entered at its first iteration).
    auto loop = [](const std::string& range, const std::string& body, const char* run) {
      const std::string head = "  local s = 0\n  for i = " + range + " do ";
      const std::string tail = " end\n  return s\nend\n";
      return "local function f(t, u)\n" + head + body + tail + "local function g(t, u)\n" + head + "print(i) " + body +
             tail + "local function h(t, u)\n  print('-')\n" + head + body + tail +
             "local t, u = {}, {7, 8, 9}\nfor k = 1, 5 do t[#t + 1] = k * 10 end\nprint(" + run + "(t, u))\n";
    };
    const std::string range_error = "ERROR: calls.lua:3: array index ";
    struct Case {
      std::string range, body, printed;  // what f prints
    };
    const std::string sum = "s = s + t[i]";
    const std::vector<Case> cases = {
        {"1, 5", sum, "150\n"},
        {"1, math.huge", sum, range_error + "6 out of range (size 5; nil is outside Kiln's script subset)"},
        {"-math.huge, 5", sum, range_error + "-inf out of range (size 5; nil is outside Kiln's script subset)"},
        {"1, 5, 0 / 0", sum, "0\n"},
        // Two arrays of different sizes: each has a proof of its own.
        {"1, 3", "s = s + t[i] + u[i]", "84\n"},
        {"1, 4", "s = s + t[i] + u[i]", range_error + "4 out of range (size 3; nil is outside Kiln's script subset)"},
        {"5, 1, -1", sum, "150\n"},
        {"2, 5, 2", sum, "60\n"},
        {"1, 5.5", sum, "150\n"},
        {"1, 0 / 0", sum, "0\n"},
        // The counter starts at 1 - 2^60, which rounds: the first value is 0, as in Lua 5.1.
        {"1, 3, 2 ^ 60", sum, range_error + "0 out of range (size 5; nil is outside Kiln's script subset)"},
        {"1, 6", sum, range_error + "6 out of range (size 5; nil is outside Kiln's script subset)"},
        {"0, 5", sum, range_error + "0 out of range (size 5; nil is outside Kiln's script subset)"},
        {"6, 1, -1", sum, range_error + "6 out of range (size 5; nil is outside Kiln's script subset)"},
        {"5, 0, -1", sum, range_error + "0 out of range (size 5; nil is outside Kiln's script subset)"},
        {"1.5, 5", sum, range_error + "1.5 out of range (size 5; nil is outside Kiln's script subset)"},
        {"1, 5, 0.5", sum, range_error + "1.5 out of range (size 5; nil is outside Kiln's script subset)"},
        {"-2 ^ 53, 5, 2 ^ 53", sum,
         range_error + "-9.007199254741e+15 out of range (size 5; nil is outside Kiln's script subset)"},
        // Written in range, then past the end (appending), then beyond it.
        {"1, 5", "t[i] = t[i] + 1 s = s + t[i]", "155\n"},
        {"1, 7", "if i > #t then t[i] = i end s = s + t[i]", "163\n"},
        {"2, 9, 2", "t[i] = i",
         "ERROR: calls.lua:3: array index 8 out of range for a write (size 6; arrays grow by a[#a + 1] = v)"},
        // Grown inside the loop: every other index is read only once the array reached it, then one
        // is read too far.
        {"1, 12", "if i % 2 == 0 then t[#t + 1] = i end s = s + t[i]",
         range_error + "11 out of range (size 10; nil is outside Kiln's script subset)"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.range);
      CAPTURE(c.body);
      auto [interpreted, compiled] = both(loop(c.range, c.body, "f"));
      CHECK(interpreted == c.printed);
      CHECK(compiled == interpreted);
      std::tie(interpreted, compiled) = both(loop(c.range, c.body, "g"));
      CHECK(compiled == interpreted);
      std::tie(interpreted, compiled) = both(loop(c.range, c.body, "h"));
      std::string printed = c.printed;  // h's loop is on line 14
      if (printed.starts_with("ERROR")) printed.replace(printed.find(":3:"), 3, ":14:");
      CHECK(interpreted == "-\n" + printed);
      CHECK(compiled == interpreted);
    }
    // Grown by a call in the body.
    const std::string grown_by_call =
        "local function grow(a) a[#a + 1] = #a + 1 return 0 end\n"
        "local function f(t, n)\n  local s = 0\n  for i = 1, n do s = s + grow(t) + t[i] end\n  return s\nend\n"
        "local t = {}\nprint(f(t, 20))\nlocal u = {}\nprint(f(u, 0))\nprint(f(t, 50))\n";
    auto [interpreted, compiled] = both(grown_by_call);
    CHECK(interpreted == "210\n0\n1275\n");
    CHECK(compiled == interpreted);
    // Every budget: the loop's proven range changes nothing of where a run stops.
    for (std::uint64_t budget = 30; budget < 400; budget += 11) {
      CAPTURE(budget);
      for (const char* run : {"f", "g", "h"}) {
        auto [i, c] = both(loop("1, 6", "s = s + t[i] * 2", run), {.instruction_budget = budget});
        CHECK(c == i);
      }
    }
  }

  TEST_CASE("a page entered inside a counted loop that cannot go on proves nothing from registers it did not load") {
    // After the print the page is entered again at the `while` head inside the `for` body, where
    // the loop's counter, limit and step are dead (the body breaks out): the access u[i] keeps its
    // check at every optimisation level (at O0 dead registers are whatever the stack held).
    const std::string source =
        "local function f(t, u, n, stop)\n"
        "  local s = 0\n"
        "  for i = 1, n do\n"
        "    s = s + t[i]\n"
        "    if i == stop then\n"
        "      print(i)\n"
        "      local w = 0\n"
        "      while w < 2 do w = w + 1 end\n"
        "      s = s + u[i]\n"
        "      break\n"
        "    end\n"
        "  end\n"
        "  return s\n"
        "end\n"
        "local big = {}\nfor k = 1, 100 do big[#big + 1] = k end\n"
        "print(f(big, big, 2, 2))\nprint(f(big, {1, 2, 3}, 100, 3))\nprint(f(big, {1, 2, 3}, 100, 50))\n";
    for (int level : {0, 2}) {
      CAPTURE(level);
      test::TempDir dir("jit");
      jitc::LlvmPageCompiler compiler({.opt_level = level});
      auto [interpreted, compiled] = interpreted_and_compiled(compiler, dir / "cache", source, {});
      CHECK(interpreted ==
            "2\n5\n3\n9\n50\nERROR: calls.lua:9: array index 50 out of range (size 3; nil is outside Kiln's script "
            "subset)");
      CHECK(compiled == interpreted);
    }
  }
}
