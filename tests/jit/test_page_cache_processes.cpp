// The page cache across processes: kiln processes sharing one cache directory, and what a process
// whose pages all come from the cache starts (no thread, no libLLVM, none of the tools).

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/jit/vm.h"
#include "kiln/jitc/llvm_page_compiler.h"
#include "kiln/lang/script.h"
#include "cache_entries.h"
#include "jit_store.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
using namespace kiln::jit;
using namespace kiln::lang;
namespace fs = std::filesystem;

namespace {

// What a run prints, then its error if it fails.
std::string run(const Program& program, JitRuntime* jit) {
  std::string out;
  Vm vm(program, {.jit = jit});
  vm.set_output([&](std::string_view line) { out += line; });
  if (auto s = vm.run(); !s) out += "RUNTIME ERROR: " + s.error().message;
  return out;
}

// The n-body script with fewer steps: the same pages, a run short enough under the sanitizers.
std::string short_nbody(const test::TempDir& dir) {
  std::string text = test::slurp(fs::path(KILN_SOURCE_DIR) / "bench/scripts/nbody.lua");
  const std::string steps = "for step = 1, 500000 do";
  const std::size_t at = text.find(steps);
  REQUIRE(at != std::string::npos);
  text.replace(at, steps.size(), "for step = 1, 2000 do");
  const fs::path script = dir / "nbody.lua";
  test::spit(script, text);
  return script.string();
}

// The threads of this process now (its entries in /proc/self/task).
std::size_t threads_now() {
  return std::size_t(std::distance(fs::directory_iterator("/proc/self/task"), fs::directory_iterator()));
}

}  // namespace

TEST_SUITE("jit") {
  TEST_CASE("processes sharing one cache directory agree - and a third starts warm") {
    test::TempDir dir("jitcache");
    const std::string script = short_nbody(dir);
    const std::string root = "--cache-root=" + (dir / "cache").string();
    auto expected = test::run_process({KILN_CLI, "script", "run", script, "--jit", "off"});
    REQUIRE(expected.exit_code == 0);
    test::RunResult a, b;
    std::thread ta([&] { a = test::run_process({KILN_CLI, "script", "run", script, root}); });
    std::thread tb([&] { b = test::run_process({KILN_CLI, "script", "run", script, root}); });
    ta.join();
    tb.join();
    CHECK(a.exit_code == 0);
    CHECK(b.exit_code == 0);
    CHECK(a.output == expected.output);
    CHECK(b.output == expected.output);
    auto c = test::run_process({KILN_CLI, "script", "run", script, root, "--json"});
    REQUIRE_MESSAGE(c.exit_code == 0, c.output);
    const auto report = nlohmann::json::parse(c.output);
    CHECK(report["output"] == expected.output);
    CHECK(report["jit"]["pages_compiled"] == 0);
    CHECK(report["jit"]["pages_loaded"].get<int>() >= 1);
    CHECK(report["jit"]["mac_rejected"] == 0);
    CHECK(report["jit"]["corrupt"] == 0);
  }

  TEST_CASE("a runtime whose pages all come from the page cache starts no thread - a compile starts its pool") {
    test::TempDir dir("jit-threads");
    jitc::LlvmPageCompiler compiler;
    auto program = compile_script("loop.lua", "local s = 0\nfor i = 1, 2000 do s = s + i * 2 end\nprint(s)\n");
    REQUIRE(program);
    const std::size_t before = threads_now();
    {
      auto cold = test::stored_runtime({.compiler = &compiler, .hot_threshold = 1}, dir / "cache");
      CHECK(threads_now() == before);  // nothing compiled yet: no pool, no cache writer
      CHECK(run(*program, cold.get()) == "4002000\n");
      cold->flush();
      CHECK(cold->stats().stored >= 1);
      CHECK(threads_now() > before);  // the compile pool and the cache's writer
    }
    CHECK(threads_now() == before);
    auto warm = test::stored_runtime({.compiler = &compiler, .hot_threshold = 1}, dir / "cache");
    CHECK(run(*program, warm.get()) == "4002000\n");
    warm->flush();
    CHECK(warm->stats().loaded >= 1);
    CHECK(warm->stats().compiled == 0);
    CHECK(threads_now() == before);
  }

  TEST_CASE(
      "a warm kiln script run maps no libLLVM or OpenImageIO or libcurl or libtiff or the tools - the cold one loads "
      "the compiler "
      "when it "
      "compiles") {
    test::TempDir dir("jit-lazy-llvm");
    const std::string script = short_nbody(dir);
    const std::string root = "--cache-root=" + (dir / "cache").string();
    auto expected = test::run_process({KILN_CLI, "script", "run", script, "--jit", "off"});
    REQUIRE(expected.exit_code == 0);
    // The dynamic loader's own account of every file it maps (LD_DEBUG=files), not Kiln's.
    const std::map<std::string, std::string> loader = {{"LD_DEBUG", "files"}};
    auto maps_llvm = [](const std::string& output) { return output.find("file=libLLVM") != std::string::npos; };
    auto cold = test::run_process({KILN_CLI, "script", "run", script, root, "--json"}, loader);
    REQUIRE_MESSAGE(cold.exit_code == 0, cold.output);
    CHECK(maps_llvm(cold.output));
    auto warm = test::run_process({KILN_CLI, "script", "run", script, root, "--json"}, loader);
    REQUIRE_MESSAGE(warm.exit_code == 0, warm.output);
    CHECK_FALSE(maps_llvm(warm.output));
    CHECK(warm.output.find("kiln-jitc") == std::string::npos);
    // Nor the image importer: no script reads an image.
    CHECK(cold.output.find("file=libOpenImageIO") == std::string::npos);
    CHECK(warm.output.find("file=libOpenImageIO") == std::string::npos);
    CHECK(warm.output.find("kiln-teximport") == std::string::npos);
    // Nor libcurl or libtiff and the libraries they need: only an HTTP remote or a TIFF loads them.
    // Nor the tools' program and what it links (the Vulkan loader, libpng, hiredis).
    for (const char* library :
         {"file=libcurl", "file=libtiff", "file=libvulkan", "file=libpng", "file=libhiredis", "kiln-tools"}) {
      CHECK(cold.output.find(library) == std::string::npos);
      CHECK(warm.output.find(library) == std::string::npos);
    }
    nlohmann::json report;  // the one JSON line among the loader's
    std::istringstream lines(warm.output);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("{\"", 0) == 0) report = nlohmann::json::parse(line);
    CHECK(report["output"] == expected.output);
    CHECK(report["jit"]["pages_compiled"] == 0);
    CHECK(report["jit"]["pages_loaded"].get<int>() >= 1);
    // A kept fingerprint that is not one line is not used: the compiler is asked again at start.
    const auto kept = test::kept_fingerprints(dir / "cache");
    REQUIRE(kept.size() == 1);
    const std::string actual = test::blob_payload(kept[0]);
    test::rewrite_blob_payload(kept[0], actual + "\nsecond line");
    auto again = test::run_process({KILN_CLI, "script", "run", script, root, "--json"}, loader);
    REQUIRE_MESSAGE(again.exit_code == 0, again.output);
    CHECK(maps_llvm(again.output));
    CHECK(test::blob_payload(kept[0]) == actual);
    // One that differs from what the compiler says (an LLVM update since): the run keys its pages by
    // the kept one, so it compiles nothing, says so once, runs right, and keeps the right one.
    test::rewrite_blob_payload(kept[0], actual + "; an older LLVM");
    test::remove_cached_pages(dir / "cache");
    auto stale = test::run_process({KILN_CLI, "script", "run", script, root}, {});
    CHECK(stale.exit_code == 0);
    CHECK(stale.output.find(expected.output) != std::string::npos);
    std::size_t said = 0;
    for (std::size_t at = stale.output.find("fingerprint changed"); at != std::string::npos;
         at = stale.output.find("fingerprint changed", at + 1))
      ++said;
    CHECK_MESSAGE(said == 1, stale.output);
    CHECK(test::blob_payload(kept[0]) == actual);
    auto fixed = test::run_process({KILN_CLI, "script", "run", script, root, "--json"}, loader);
    REQUIRE(fixed.exit_code == 0);
    CHECK(fixed.output.find("fingerprint changed") == std::string::npos);
  }
}
