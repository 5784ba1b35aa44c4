// The cook and the script compiler (LLVM, in kiln-jitc.so): loaded only when a page must compile,
// and then in kiln-page-worker processes, never in the cook.
#include <doctest/doctest.h>

#include <regex>

#include "cache_entries.h"
#include "child_process.h"
#include "cook_run.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// Kiln installed in a directory of its own (<dir>/bin), so that its compiler can be broken.
fs::path install_kiln(const test::TempDir& dir) {
  const fs::path tools = fs::path(KILN_CLI).parent_path(), bin = dir / "bin";
  fs::create_directories(bin);
  for (const char* file :
       {"kiln", "kiln-tools.so", "kiln-jitc.so", "kiln-shader-worker", "kiln-page-worker", "kiln-teximport.so"})
    fs::copy_file(tools / file, bin / file);
  return bin;
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE(
      "a cook whose script pages all come from the cache never loads the compiler - one that must fails naming why") {
    test::TempDir dir("cookjit");
    const fs::path bin = install_kiln(dir);
    const fs::path project = test::copy_assets(dir), cache = dir / "cache";
    const auto cook = [&](const std::string& out) {
      return test::run_process({(bin / "kiln").string(), "cook", project.string(), "--out", (dir / out).string(),
                                "--cache-root", cache.string()});
    };
    const auto first = cook("first");
    REQUIRE_MESSAGE(first.exit_code == 0, first.output);

    // A compiler that cannot load: the pages are all in the cache, so the cook does not need it.
    const std::string whole = test::slurp(bin / "kiln-jitc.so");
    fs::remove(bin / "kiln-jitc.so");
    test::spit(bin / "kiln-jitc.so", whole.substr(0, 100000));
    const auto warm = cook("warm");
    CHECK_MESSAGE(warm.exit_code == 0, warm.output);
    CHECK(warm.output.find("kiln-jitc.so") == std::string::npos);
    // Every page shipped, each from the page cache: "(10 pages: 0 compiled, 10 from the page cache)".
    std::smatch pages;
    REQUIRE_MESSAGE(
        std::regex_search(warm.output, pages, std::regex(R"(\((\d+) pages: 0 compiled, (\d+) from the page cache\))")),
        warm.output);
    CHECK(pages[1].str() != "0");
    CHECK(pages[1].str() == pages[2].str());
    const std::string first_scripts = test::slurp(test::pack_file(dir / "first", "scripts"));
    const std::string warm_scripts = test::slurp(test::pack_file(dir / "warm", "scripts"));
    CHECK(!first_scripts.empty());
    CHECK(warm_scripts == first_scripts);  // every page shipped compiled, as the first cook shipped it

    // Pages the cache lacks must be compiled: the cook fails, says why, and writes nothing.
    test::remove_cached_pages(cache);
    const auto cold = cook("cold");
    CHECK_MESSAGE(cold.exit_code == 1, cold.output);
    CHECK_MESSAGE(cold.output.find("kiln cook: " + (bin / "kiln-jitc.so").string()) != std::string::npos, cold.output);
    CHECK_FALSE(fs::exists(dir / "cold" / "manifest.json"));
    // The same with the compiler in the cook (jit.compile_workers off).
    const auto in_cook =
        test::run_process({(bin / "kiln").string(), "cook", project.string(), "--out", (dir / "in-cook").string(),
                           "--cache-root", cache.string(), "--jit-compile-workers", "false"});
    CHECK_MESSAGE(in_cook.exit_code == 1, in_cook.output);
    CHECK_MESSAGE(in_cook.output.find("kiln cook: " + (bin / "kiln-jitc.so").string()) != std::string::npos,
                  in_cook.output);
    CHECK_FALSE(fs::exists(dir / "in-cook" / "manifest.json"));
  }

  TEST_CASE(
      "a cook compiles script pages in kiln-page-worker processes - LLVM never maps into the cook - and ships "
      "what a compile in the cook ships") {
    test::TempDir dir("cookjit");
    const fs::path project = test::copy_assets(dir);
    // The dynamic loader's trace, one file per process: which process mapped which library.
    const auto cook = [&](const std::string& out, const std::string& workers) {
      const fs::path trace = dir / ("trace-" + out);
      fs::create_directories(trace);
      const auto run =
          test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / out).string(), "--cache-root",
                             (dir / ("cache-" + out)).string(), "--jit-compile-workers", workers},
                            {{"LD_DEBUG", "files"}, {"LD_DEBUG_OUTPUT", (trace / "ld").string()}});
      REQUIRE_MESSAGE(run.exit_code == 0, run.output);
      REQUIRE_MESSAGE(run.output.find(" compiled, 0 from the page cache)") != std::string::npos, run.output);
      struct Mapped {
        int cooks = 0, cooks_with_llvm = 0, others_with_llvm = 0;
      } mapped;
      for (const auto& file : fs::directory_iterator(trace)) {
        const std::string text = test::slurp(file.path());
        const bool llvm = text.find("libLLVM") != std::string::npos;
        if (text.find("kiln-tools.so") != std::string::npos) {
          ++mapped.cooks;
          mapped.cooks_with_llvm += llvm;
        } else {
          mapped.others_with_llvm += llvm;
        }
      }
      return mapped;
    };
    const auto isolated = cook("isolated", "true");
    CHECK(isolated.cooks == 1);
    CHECK(isolated.cooks_with_llvm == 0);
    CHECK(isolated.others_with_llvm >= 1);  // the workers
    // Off: the cook maps LLVM itself (what the trace above would have seen).
    const auto in_process = cook("in-process", "false");
    CHECK(in_process.cooks == 1);
    CHECK(in_process.cooks_with_llvm == 1);
    CHECK(in_process.others_with_llvm == 0);
    const std::string shipped = test::slurp(test::pack_file(dir / "isolated", "scripts"));
    CHECK(!shipped.empty());
    CHECK(shipped == test::slurp(test::pack_file(dir / "in-process", "scripts")));
  }

  TEST_CASE("a cook whose page worker crashes fails saying so and writes no set") {
    test::TempDir dir("cookjit");
    const fs::path bin = install_kiln(dir);
    const fs::path project = test::copy_assets(dir), cache = dir / "cache";
    const auto cook = [&](const std::string& out, const fs::path& cache_root) {
      return test::run_process({(bin / "kiln").string(), "cook", project.string(), "--out", (dir / out).string(),
                                "--cache-root", cache_root.string()});
    };
    const auto first = cook("first", cache);
    REQUIRE_MESSAGE(first.exit_code == 0, first.output);

    // A worker that dies on its first request, as LLVM crashing on a page would end it.
    fs::remove(bin / "kiln-page-worker");
    test::spit_script(bin / "kiln-page-worker", "head -c 8 >/dev/null\nkill -SEGV $$");
    // The fingerprint is kept: the cook meets the worker at its first page.
    test::remove_cached_pages(cache);
    const auto lost = cook("lost", cache);
    CHECK_MESSAGE(lost.exit_code == 1, lost.output);
    CHECK_MESSAGE(
        lost.output.find("kiln cook: the script compiler crashed (SIGSEGV) compiling page ") != std::string::npos,
        lost.output);
    CHECK_FALSE(fs::exists(dir / "lost" / "manifest.json"));
    // Nothing kept: the cook meets it asking for the fingerprint.
    const auto unkept = cook("unkept", dir / "cache2");
    CHECK_MESSAGE(unkept.exit_code == 1, unkept.output);
    CHECK_MESSAGE(unkept.output.find("kiln cook: the script compiler is not available: the script compiler crashed "
                                     "(SIGSEGV) starting") != std::string::npos,
                  unkept.output);
    CHECK_FALSE(fs::exists(dir / "unkept" / "manifest.json"));
  }
}
