// The cook and the script compiler (LLVM, in kiln-jitc.so): loaded only when a page must compile.
#include <doctest/doctest.h>

#include <regex>

#include "cache_entries.h"
#include "child_process.h"
#include "cook_run.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

TEST_SUITE("editor") {
  TEST_CASE(
      "a cook whose script pages all come from the cache never loads the compiler - one that must fails naming why") {
    test::TempDir dir("cookjit");
    // Kiln installed in a directory of its own, so that its compiler can be broken.
    const fs::path tools = fs::path(KILN_CLI).parent_path(), bin = dir / "bin";
    fs::create_directories(bin);
    for (const char* file : {"kiln", "kiln-tools.so", "kiln-jitc.so", "kiln-shader-worker", "kiln-teximport.so"})
      fs::copy_file(tools / file, bin / file);
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
  }
}
