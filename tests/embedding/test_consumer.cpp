// A game embedding Kiln: the consumer project (tests/consumer) configured, built and run against an
// installed tree (cmake --install, find_package(Kiln)) and against the source tree
// (add_subdirectory), with real cmake processes. Both load a cooked material through the runtime
// reader and must print what the reader says in this process.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "child_process.h"
#include "kiln/runtime/cooked_set.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

const fs::path kConsumer = fs::path(KILN_SOURCE_DIR) / "tests/consumer";

// How the consumer is compiled: as this build (its installed libraries carry its build type and
// sanitizers), or plainly (no build type, no sanitizers: a game's first build of Kiln's sources,
// and the quickest).
enum class Flags { kThisBuild, kPlain };

// `cmake -S consumer -B build` with this build's compiler, then a build of the consumer alone.
test::RunResult configure_and_build(const fs::path& build, Flags flags, const std::vector<std::string>& extra) {
  const bool plain = flags == Flags::kPlain;
  std::vector<std::string> argv = {KILN_CMAKE,
                                   "-S",
                                   kConsumer.string(),
                                   "-B",
                                   build.string(),
                                   "-G",
                                   "Ninja",
                                   "-DCMAKE_CXX_COMPILER=" KILN_CXX_COMPILER,
                                   std::string("-DCMAKE_BUILD_TYPE=") + (plain ? "" : KILN_BUILD_TYPE),
                                   std::string("-DCMAKE_CXX_FLAGS=") + (plain ? "" : KILN_CONSUMER_FLAGS),
                                   std::string("-DCMAKE_EXE_LINKER_FLAGS=") + (plain ? "" : KILN_CONSUMER_FLAGS)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto configured = test::run_process(argv);
  if (configured.exit_code != 0) return configured;
  return test::run_process({KILN_CMAKE, "--build", build.string(), "--target", "consumer"});
}

// What the consumer must print for `material`, from the reader in this process.
std::string expected_output(const fs::path& cooked, const std::string& material) {
  auto set = runtime::CookedSet::open(cooked);
  REQUIRE_MESSAGE(set, set.error().message);
  auto record = (*set)->material(material);
  REQUIRE_MESSAGE(record, record.error().message);
  std::string out =
      record->file + ": shader " + record->shader + ", " + std::to_string(record->passes.size()) + " passes\n";
  for (const auto& pass : record->passes) {
    auto variant = (*set)->variant(pass.variant);
    REQUIRE_MESSAGE(variant, variant.error().message);
    std::size_t words = 0;
    for (const auto& stage : variant->stages) words += stage.spirv.size();
    out += "pass " + pass.pass + ": variant " + pass.variant + ", " + std::to_string(variant->stages.size()) +
           " stages, " + std::to_string(words) + " SPIR-V words\n";
  }
  return out;
}

fs::path cook_sample(const test::TempDir& dir) {
  const fs::path out = dir / "cooked";
  auto cooked = test::run_process({KILN_CLI, "cook", (fs::path(KILN_SOURCE_DIR) / "assets").string(), "--out",
                                   out.string(), "--cache-root", (dir / "cache").string()});
  REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
  return out;
}

}  // namespace

TEST_SUITE("embedding") {
  TEST_CASE("a game builds against an installed Kiln with find_package and loads a cooked material") {
    test::TempDir dir("consumer-installed");
    const fs::path cooked = cook_sample(dir);
    const fs::path prefix = dir / "prefix";
    auto installed = test::run_process(
        {KILN_CMAKE, "--install", KILN_BINARY_DIR, "--prefix", prefix.string(), "--component", "development"});
    REQUIRE_MESSAGE(installed.exit_code == 0, installed.output);
    CHECK(fs::is_regular_file(prefix / "lib/cmake/Kiln/KilnConfig.cmake"));
    CHECK(fs::is_regular_file(prefix / "include/kiln/runtime/cooked_set.h"));
    CHECK_FALSE(fs::exists(prefix / "include/kiln/shadercache"));  // the tools' modules stay out

    auto built = configure_and_build(dir / "build", Flags::kThisBuild, {"-DCMAKE_PREFIX_PATH=" + prefix.string()});
    REQUIRE_MESSAGE(built.exit_code == 0, built.output);
    auto ran = test::run_process({(dir / "build/consumer").string(), cooked.string(), "materials/brick.json"});
    REQUIRE_MESSAGE(ran.exit_code == 0, ran.output);
    CHECK(ran.output == expected_output(cooked, "materials/brick.json"));
  }

  TEST_CASE("a game builds Kiln from source with add_subdirectory - without its tools and tests") {
    test::TempDir dir("consumer-source");
    const fs::path cooked = cook_sample(dir);
    auto built = configure_and_build(dir / "build", Flags::kPlain, {"-DKILN_SOURCE_DIR=" KILN_SOURCE_DIR});
    REQUIRE_MESSAGE(built.exit_code == 0, built.output);
    const std::string cache = test::slurp(dir / "build/CMakeCache.txt");
    CHECK(cache.find("KILN_BUILD_TESTS:BOOL=OFF") != std::string::npos);
    CHECK(cache.find("KILN_BUILD_TOOLS:BOOL=OFF") != std::string::npos);
    CHECK(cache.find("doctest_DIR") == std::string::npos);  // neither looked for nor required
    CHECK_FALSE(fs::exists(dir / "build/kiln/editor"));
    auto ran = test::run_process({(dir / "build/consumer").string(), cooked.string(), "materials/brick.json"});
    REQUIRE_MESSAGE(ran.exit_code == 0, ran.output);
    CHECK(ran.output == expected_output(cooked, "materials/brick.json"));
    // The reader's errors reach the game naming the entry.
    auto missing = test::run_process({(dir / "build/consumer").string(), cooked.string(), "materials/none.json"});
    CHECK(missing.exit_code == 1);
    CHECK(missing.output.find("materials/none.json") != std::string::npos);
  }
}
