#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "child_process.h"
#include "kiln/jit/script.h"
#include "kiln/jit/vm.h"

using namespace kiln;
using namespace kiln::jit;
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

}  // namespace

TEST_SUITE("jit") {

// Every corpus script prints exactly what luajit and lua5.1 print wherever those two agree. Where
// they disagree (documented in README: LuaJIT rounds a halfway 15th digit up; Lua 5.1 merges the
// constants 0 and -0), Kiln must print what one of them prints.
TEST_CASE("the corpus runs like luajit and lua5.1") {
  std::vector<fs::path> scripts;
  for (const auto& e : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "tests/jit/scripts"))
    if (e.path().extension() == ".lua") scripts.push_back(e.path());
  std::sort(scripts.begin(), scripts.end());
  REQUIRE(scripts.size() >= 25);
  int agreed = 0, disagreed = 0;
  for (const auto& script : scripts) {
    const std::string kiln = run_kiln(script.string());
    const auto luajit = test::run_process({"/usr/bin/luajit", script.string()});
    const auto lua51 = test::run_process({"/usr/bin/lua5.1", script.string()});
    REQUIRE_MESSAGE(luajit.exit_code == 0, script << ": " << luajit.output);
    REQUIRE_MESSAGE(lua51.exit_code == 0, script << ": " << lua51.output);
    if (luajit.output == lua51.output) {
      CHECK_MESSAGE(kiln == lua51.output, script.filename() << "\nkiln:\n" << kiln << "\nreference:\n" << lua51.output);
      ++agreed;
    } else {
      CHECK_MESSAGE((kiln == lua51.output || kiln == luajit.output), script.filename() << "\nkiln:\n" << kiln);
      ++disagreed;
    }
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
  CHECK(run("for i = 10, 1, 0 do end", {.instruction_budget = 1000}) ==
        "loop.lua:1: instruction budget exhausted (runaway script?)");
  CHECK(run("function deep(n) return deep(n + 1) + 1 end\nprint(deep(1))", {.max_call_depth = 5000}) ==
        "loop.lua:1: stack overflow (call depth over 5000)");
  CHECK(run("local t = {1, 2}\nprint(t[3])", {}) ==
        "loop.lua:2: array index 3 out of range (size 2; nil is outside Kiln's script subset)");
  CHECK(run("local t = {1, 2}\nt[0.5] = 1", {}) ==
        "loop.lua:2: array index 0.5 out of range for a write (size 2; arrays grow by a[#a + 1] = v)");
  CHECK(run("print(later())\nfunction later() return 1 end", {}) ==
        "loop.lua:1: attempt to call function 'later' before its definition");
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
)", host);
  REQUIRE_MESSAGE(program, program.error().message);
  Vm vm(*program);
  double set_to = -1;
  vm.bind("param", [](std::span<const double> a) { return a[0] * 10; });
  vm.bind("set_param", [&](std::span<const double> a) { set_to = a[1]; return 0.0; });
  REQUIRE(vm.run());
  const double args[] = {0.0};
  auto r = vm.call("update", args);
  REQUIRE(r);
  CHECK(*r == 20);
  CHECK(set_to == 10);
  CHECK_FALSE(vm.call("nothing", {}));
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
