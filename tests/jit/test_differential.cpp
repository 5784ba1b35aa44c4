#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "child_process.h"
#include "kiln/lang/script.h"
#include "kiln/jit/vm.h"

using namespace kiln;
using namespace kiln::jit;
using namespace kiln::lang;
namespace fs = std::filesystem;

namespace {

// Runs `file` in Kiln's interpreter; the printed output, or the error.
std::string run_kiln(const std::string& file) {
  auto program = compile_script_file(file);
  if (!program) return "COMPILE ERROR: " + program.error().message;
  std::string out;
  Vm vm(*program, {.instruction_budget = 2'000'000'000});
  vm.set_output([&](std::string_view line) { out += line; });
  if (auto s = vm.run(); !s) out += "RUNTIME ERROR: " + s.error().message;
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

// The differential rule, line by line: where luajit and lua5.1 print the same line, Kiln prints it
// too; where they differ (their documented corner cases), Kiln prints one of the two. Empty when
// Kiln follows the rule, else the first line that breaks it.
std::string differential_mismatch(const std::string& kiln, const std::string& luajit, const std::string& lua51) {
  const auto k = lines_of(kiln), j = lines_of(luajit), l = lines_of(lua51);
  // The references disagree on control flow (math.min/max of a NaN): Kiln follows one of them.
  if (j.size() != l.size())
    return kiln == lua51 || kiln == luajit
               ? ""
               : "kiln prints what neither reference prints (they disagree on control flow)";
  if (k.size() != l.size())
    return "kiln printed " + std::to_string(k.size()) + " lines, the references " + std::to_string(l.size());
  for (std::size_t i = 0; i < k.size(); ++i) {
    if (k[i] == l[i] || (j[i] != l[i] && k[i] == j[i])) continue;
    return "line " + std::to_string(i + 1) + ": kiln '" + k[i] + "', lua5.1 '" + l[i] + "', luajit '" + j[i] + "'";
  }
  return "";
}

TEST_SUITE("jit") {
  // Every corpus script prints exactly what luajit and lua5.1 print wherever those two agree. Where
  // they disagree (documented in README: LuaJIT rounds a halfway 15th digit up and prints every NaN
  // as "nan"; Lua 5.1 merges the constants 0 and -0), Kiln prints what one of them prints.
  TEST_CASE("the corpus runs like luajit and lua5.1") {
    std::vector<fs::path> scripts;
    for (const auto& e : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "tests/jit/scripts"))
      if (e.path().extension() == ".lua") scripts.push_back(e.path());
    std::sort(scripts.begin(), scripts.end());
    REQUIRE(scripts.size() >= 60);
    int agreed = 0, disagreed = 0;
    for (const auto& script : scripts) {
      const std::string kiln = run_kiln(script.string());
      const auto luajit = test::run_process({"/usr/bin/luajit", script.string()});
      const auto lua51 = test::run_process({"/usr/bin/lua5.1", script.string()});
      REQUIRE_MESSAGE(luajit.exit_code == 0, script << ": " << luajit.output);
      REQUIRE_MESSAGE(lua51.exit_code == 0, script << ": " << lua51.output);
      CHECK_MESSAGE(differential_mismatch(kiln, luajit.output, lua51.output).empty(),
                    script.filename() << ": " << differential_mismatch(kiln, luajit.output, lua51.output));
      (luajit.output == lua51.output ? agreed : disagreed)++;
    }
    CHECK(agreed > disagreed);
  }

  TEST_CASE("runaway scripts end with a located error instead of hanging or crashing") {
    auto run = [](const std::string& source, VmOptions options) {
      auto program = compile_script("loop.lua", source);
      REQUIRE_MESSAGE(program, program.error().message);
      Vm vm(*program, options);
      vm.set_output([](std::string_view) {});
      auto s = vm.run();
      return s ? std::string("(finished)") : s.error().message;
    };
    CHECK(run("local i = 0\nwhile true do\n  i = i + 1\nend", {.instruction_budget = 100000}) ==
          "loop.lua:2: instruction budget exhausted (runaway script?)");
    CHECK(run("local i = 0\nrepeat i = i + 1 until false", {.instruction_budget = 1000}) ==
          "loop.lua:2: instruction budget exhausted (runaway script?)");
    CHECK(run("local i = 0\nrepeat\n  i = i + 1\nuntil i < 0", {.instruction_budget = 1000}) ==
          "loop.lua:4: instruction budget exhausted (runaway script?)");
    CHECK(run("for i = 10, 1, 0 do end", {.instruction_budget = 1000}) ==
          "loop.lua:1: instruction budget exhausted (runaway script?)");
    CHECK(run("function deep(n) return deep(n + 1) + 1 end\nprint(deep(1))", {.max_call_depth = 5000}) ==
          "loop.lua:1: stack overflow (call depth over 5000)");
    {
      // The limit is where the calls stop, not only what the message says: the main chunk and
      // deep(1) .. deep(4999) fill the 5000 frames.
      auto program = compile_script(
          "deep.lua",
          "function deep(n)\n  if n % 500 == 0 then print(n) end\n  return deep(n + 1) + 1\nend\nprint(deep(1))\n");
      REQUIRE(program);
      Vm vm(*program, {.max_call_depth = 5000});
      std::string out;
      vm.set_output([&](std::string_view text) { out += text; });
      CHECK_FALSE(vm.run());
      CHECK_MESSAGE(out.ends_with("\n4500\n"), out);
    }
    CHECK(run("local t = {1, 2}\nprint(t[3])", {}) ==
          "loop.lua:2: array index 3 out of range (size 2; nil is outside Kiln's script subset)");
    CHECK(run("local t = {1, 2}\nt[0.5] = 1", {}) ==
          "loop.lua:2: array index 0.5 out of range for a write (size 2; arrays grow by a[#a + 1] = v)");
    CHECK(run("print(later())\nfunction later() return 1 end", {}) ==
          "loop.lua:1: attempt to call function 'later' before its definition");
    CHECK(run("local f = later\nfunction later() return 1 end", {}) ==
          "loop.lua:1: function 'later' used before its definition");
    // Memory that stays live: the collector stops the script where it allocates past the budget
    // (long before the instruction budget, which is there so that a missing memory check fails
    // instead of hanging).
    const VmOptions small_heap{.instruction_budget = 2'000'000, .memory_max = 64 << 10};
    const std::string runaway = run("local t = {}\nwhile true do t[#t + 1] = 1 end", small_heap);
    CHECK_MESSAGE(runaway.starts_with("loop.lua:2: script memory budget exhausted ("), runaway);
    CHECK_MESSAGE(runaway.ends_with(" live, over scripts.memory_max = 64KiB)"), runaway);
    const std::string strings = run("local t = {}\nwhile true do t[#t + 1] = string.rep(\"x\", 100) .. #t end",
                                    {.instruction_budget = 2'000'000, .memory_max = 1 << 20});
    CHECK_MESSAGE(strings.starts_with("loop.lua:2: script memory budget exhausted ("), strings);
    {
      // A function whose locals need no temporaries still gets a frame for all of them, however deep.
      std::string src = "function many()\n";
      for (int i = 0; i < 150; ++i) src += "  local v" + std::to_string(i) + " = 0\n";
      src += "end\nfunction deep(n) if n > 0 then deep(n - 1) else many() end end\nfor i = 1, 300 do deep(i) end\n";
      CHECK(run(src, {}) == "(finished)");
    }
  }

  TEST_CASE("a cancellation from another thread stops a running script") {
    auto program = compile_script("spin.lua", "local i = 0\nwhile true do i = i + 1 end");
    REQUIRE(program);
    Vm vm(*program);
    vm.cancel();
    auto s = vm.run();
    REQUIRE_FALSE(s);
    CHECK(s.error().message == "spin.lua:2: cancelled");
  }

  TEST_CASE("host functions and calls into the script from the engine") {
    const std::vector<HostSignature> host = {{"param", {Type::kNumber}, Type::kNumber},
                                             {"set_param", {Type::kNumber, Type::kNumber}, Type::kVoid}};
    auto program = compile_script("anim.lua", R"(
local base = engine.param(1)
function update(t) engine.set_param(2, base + math.sin(t)) return base * 2 end
)",
                                  host);
    REQUIRE_MESSAGE(program, program.error().message);
    Vm vm(*program);
    double set_to = -1;
    vm.bind("param", [](std::span<const double> a) { return a[0] * 10; });
    vm.bind("set_param", [&](std::span<const double> a) {
      set_to = a[1];
      return 0.0;
    });
    REQUIRE(vm.run());
    const double args[] = {0.0};
    auto r = vm.call("update", args);
    REQUIRE(r);
    CHECK(*r == 20);
    CHECK(set_to == 10);
    CHECK_FALSE(vm.call("nothing", {}));
  }

  TEST_CASE("the engine calls script functions with arrays and gets typed results") {
    auto program = compile_script("k.lua", R"(
function scaled(xs, k) local out = {} for i = 1, #xs do out[#out + 1] = xs[i] * k end return out end
function any(flags) for i = 1, #flags do if flags[i] == true then return true end end return false end
)");
    REQUIRE_MESSAGE(program, program.error().message);
    Vm vm(*program);
    REQUIRE(vm.run());
    const ScriptValue args[] = {std::vector<double>{1, 2, 3}, 2.0};
    auto r = vm.call_values("scaled", args);
    REQUIRE_MESSAGE(r, r.error().message);
    CHECK(std::get<std::vector<double>>(*r) == std::vector<double>{2, 4, 6});
    const ScriptValue flags[] = {std::vector<bool>{false, true}};
    CHECK(std::get<bool>(*vm.call_values("any", flags)) == true);
    const double plain[] = {1.0, 2.0};
    auto refused = vm.call("scaled", plain);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message == "k.lua: parameter 1 of 'scaled' is number[]: use call_values");
    const ScriptValue wrong[] = {1.0, 2.0};
    auto bad = vm.call_values("scaled", wrong);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message == "k.lua: argument 1 of 'scaled' must be number[]");
  }

  TEST_CASE("editing one function of a 40-function script changes only that function's pages") {
    auto source = [](int edited_body) {
      std::string s;
      for (int f = 0; f < 40; ++f) {
        s += "function f" + std::to_string(f) + "(x)\n";
        s += "  local y = x * " + std::to_string(f + 1) + "\n";
        if (f == 17) s += "  y = y + " + std::to_string(edited_body) + "\n  for i = 1, 3 do y = y + i end\n";
        if (f == 17 && edited_body > 1) s += "  y = y - 1\n  y = y * 2\n";  // the function grows
        s += "  return y + f" + std::to_string((f + 1) % 40) + "(0) * 0\nend\n";
      }
      return s;
    };
    auto a = compile_script("forty.lua", source(1));
    auto b = compile_script("forty.lua", source(2));
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(a->page_count() == b->page_count());
    std::size_t changed = 0;
    for (std::size_t p = 0; p < a->page_count(); ++p) {
      const auto pa = a->page(p), pb = b->page(p);
      const bool same = std::equal(pa.begin(), pa.end(), pb.begin());
      const bool edited = p == b->functions[18].first_page;  // function 0 is the chunk: f17 is 18
      CHECK_MESSAGE(same != edited, "page " << p);
      changed += same ? 0 : 1;
    }
    CHECK(changed == 1);
    CHECK(a->entries[a->functions[18].first_page].front() == 0);
  }
}

#include <fstream>

#include "program_generator.h"
#include "temp_dir.h"

TEST_SUITE("jit") {
  // Seeded random programs: Kiln must print what both references print. KILN_FUZZ_SEED and
  // KILN_FUZZ_COUNT move the window; a failure names its seed, and the program is kept on disk.
  TEST_CASE("random well-typed programs run like luajit and lua5.1") {
    const std::uint64_t first =
        std::getenv("KILN_FUZZ_SEED") ? std::strtoull(std::getenv("KILN_FUZZ_SEED"), nullptr, 10) : 1;
    const int count = std::getenv("KILN_FUZZ_COUNT") ? std::atoi(std::getenv("KILN_FUZZ_COUNT")) : 500;
    test::TempDir dir("fuzz");
    int compared = 0, reference_errors = 0;
    int with_strings = 0, with_records = 0, with_closures = 0;
    for (std::uint64_t seed = first; seed < first + static_cast<std::uint64_t>(count); ++seed) {
      const std::string source = test::generate_program(seed);
      with_strings += source.find(" .. ") != std::string::npos;
      with_records += source.find("{x = ") != std::string::npos;
      with_closures += source.find("return function(d)") != std::string::npos;
      const fs::path file = dir / ("p" + std::to_string(seed) + ".lua");
      std::ofstream(file) << source;
      auto program = compile_script(file.string(), source);
      REQUIRE_MESSAGE(program, "seed " << seed << " did not compile: " << program.error().message << "\n" << source);
      std::string kiln;
      Vm vm(*program, {.instruction_budget = 10'000'000});
      vm.set_output([&](std::string_view line) { kiln += line; });
      const Status ran = vm.run();
      const auto luajit = test::run_process({"/usr/bin/luajit", file.string()});
      const auto lua51 = test::run_process({"/usr/bin/lua5.1", file.string()});
      if (luajit.exit_code != 0 || lua51.exit_code != 0) {
        ++reference_errors;
        CHECK_MESSAGE(!ran, "seed " << seed << ": a reference failed but Kiln ran\n" << lua51.output << luajit.output);
        continue;
      }
      REQUIRE_MESSAGE(ran, "seed " << seed << ": " << ran.error().message << "\n" << source);
      const std::string mismatch = differential_mismatch(kiln, luajit.output, lua51.output);
      CHECK_MESSAGE(mismatch.empty(), "seed " << seed << ": " << mismatch << "\n" << source);
      ++compared;
    }
    MESSAGE("compared " << compared << " programs, " << reference_errors << " failed in the references; "
                        << with_strings << " join strings, " << with_records << " make records, " << with_closures
                        << " make closures");
    CHECK(compared >= count * 9 / 10);
    CHECK(with_strings >= count / 4);
    CHECK(with_records >= count / 4);
    CHECK(with_closures >= count / 4);
  }
}
