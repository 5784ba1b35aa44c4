// Every input kept under fuzz/ — the corpora and the inputs that once broke a loader — runs
// through its target's body here, in the normal suite and under the sanitizers: a regression of a
// fixed crash fails a test, not only a fuzzing run.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz_target.h"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> inputs_of(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_SUITE("fuzz") {
  TEST_CASE("every fuzz target has a seed corpus - and every kept input runs clean through it") {
    const auto& targets = kiln::fuzz::registry();
    CHECK(targets.size() >= 11);
    for (const auto& [target_name, body] : targets) {
      const auto& name = target_name;  // lambdas (CAPTURE) cannot name a binding in clang 14
      CAPTURE(name);
      const auto corpus = inputs_of(fs::path(KILN_FUZZ_DIR) / "corpus" / name);
      CHECK_MESSAGE(!corpus.empty(), "fuzz/corpus/" << name << " has no seeds");
      auto inputs = corpus;
      const auto regressions = inputs_of(fs::path(KILN_FUZZ_DIR) / "regressions" / name);
      inputs.insert(inputs.end(), regressions.begin(), regressions.end());
      for (const fs::path& input : inputs) {
        INFO("input: " << input.string());
        std::ifstream in(input, std::ios::binary);
        const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
        body(bytes);  // a broken contract aborts the test binary, naming the input in the log above
      }
      MESSAGE(name << ": " << inputs.size() << " inputs");
    }
  }
}
