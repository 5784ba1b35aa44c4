#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "kiln/lang/script.h"
#include "kiln/jit/vm.h"
#include "kiln/jitc/llvm_page_compiler.h"
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
        auto cold = JitRuntime::create(
            {.compiler = &compiler, .cache_root = dir / "cache", .synchronous = true, .hot_threshold = 1});
        REQUIRE(cold);
        CHECK(run(*program, cold->get()) == interpreted);
        (*cold)->flush();
        cold_stats = (*cold)->stats();
      }
      {
        auto warm = JitRuntime::create(
            {.compiler = &compiler, .cache_root = dir / "cache", .synchronous = true, .hot_threshold = 1});
        REQUIRE(warm);
        CHECK(run(*program, warm->get()) == interpreted);
        warm_stats = (*warm)->stats();
      }
      CHECK(cold_stats.compiled >= 1);
      CHECK(warm_stats.compiled == 0);
      CHECK(warm_stats.loaded == cold_stats.stored);
    }
  }
}
