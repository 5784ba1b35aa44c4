#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "servers.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// Every file of a cook's output directory and its bytes.
std::map<std::string, std::string> cooked_files(const fs::path& out) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(out)) files[e.path().filename().string()] = test::slurp(e.path());
  return files;
}

// How many lines of `output` contain `text`.
int count_lines(const std::string& output, const std::string& text) {
  int count = 0;
  for (std::size_t at = 0; (at = output.find(text, at)) != std::string::npos; at = output.find('\n', at)) ++count;
  return count;
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("when the system refuses every thread a cook fails naming why - and keeps the packs it had") {
    // Shaders compile on a thread of their own with a large stack (glslang recurses deeply): without
    // one they cannot compile, and the cook must say so instead of ending in std::terminate.
    test::TempDir dir("threads");
    const fs::path project = test::copy_assets(dir);
    const fs::path out = dir / "out";
    const fs::path log = dir / "refused.log";
    auto cook = [&](const std::map<std::string, std::string>& env, std::vector<std::string> extra) {
      std::vector<std::string> argv = {KILN_CLI,     "cook",         project.string(),         "--out",
                                       out.string(), "--cache-root", (dir / "cache").string(), "--jobs",
                                       "4"};
      argv.insert(argv.end(), extra.begin(), extra.end());
      return test::run_process(argv, env);
    };
    const auto threaded = cook({}, {});
    REQUIRE_MESSAGE(threaded.exit_code == 0, threaded.output);
    CHECK(threaded.output.find("worker threads started") == std::string::npos);
    // Nothing to take from the cache or the set: every variant must compile.
    fs::remove(out / ".shaders-inputs");
    fs::remove(out / ".shaders-entries");
    const auto before = cooked_files(out);
    fs::remove_all(dir / "cache");
    test::RedisServer redis(dir / "redis");
    const auto alone = cook({{"LD_PRELOAD", KILN_REFUSE_THREADS}, {"KILN_TEST_REFUSED_LOG", log.string()}},
                            {"--cache-remote", redis.url()});
    CHECK_MESSAGE(alone.exit_code == 1, alone.output);
    CHECK(fs::exists(log));  // the cook did ask for threads, and was refused
    CHECK(count_lines(alone.output,
                      "cook: 0 of 4 worker threads started (cannot start a thread: Resource "
                      "temporarily unavailable): slower than --jobs asks") == 1);
    CHECK(alone.output.find("shaders/lit.frag: error: cannot start a compile thread: Resource temporarily "
                            "unavailable") != std::string::npos);
    CHECK(alone.output.find("keeps its previous set") != std::string::npos);
    // The remote cache has no thread to upload with: read from, not written to, and said once.
    CHECK(count_lines(alone.output,
                      ": cannot start a thread: Resource temporarily unavailable: reading from it, "
                      "writing no more") == 1);
    // A remote it only reads from loses nothing without that thread: not a word of it.
    const auto reading = cook({{"LD_PRELOAD", KILN_REFUSE_THREADS}},
                              {"--cache-remote", redis.url(), "--cache-remote-read-only", "true"});
    CHECK_MESSAGE(reading.exit_code == 1, reading.output);
    CHECK(reading.output.find("cannot start a compile thread") != std::string::npos);  // as far as the first
    CHECK(reading.output.find("writing no more") == std::string::npos);
    CHECK(cooked_files(out) == before);
  }

  TEST_CASE("when the system refuses every thread a script run compiles and stores its pages itself") {
    test::TempDir dir("threads");
    const fs::path script = fs::path(KILN_SOURCE_DIR) / "bench/scripts/fib.lua";
    const fs::path cache = dir / "cache";
    const fs::path log = dir / "refused.log";
    auto run = [&](const std::map<std::string, std::string>& env) {
      return test::run_process({KILN_CLI, "script", "run", script.string(), "--cache-root", cache.string(), "--json"},
                               env);
    };
    const auto alone = run({{"LD_PRELOAD", KILN_REFUSE_THREADS}, {"KILN_TEST_REFUSED_LOG", log.string()}});
    REQUIRE_MESSAGE(alone.exit_code == 0, alone.output);
    CHECK(fs::exists(log));
    const auto cold = nlohmann::json::parse(alone.output);
    CHECK(cold["output"] == "2178309\n");
    CHECK(cold["jit"]["pages_compiled"].get<int>() >= 1);
    CHECK(cold["jit"]["stored"] == cold["jit"]["pages_compiled"]);
    // What it stored serves the next run, which compiles nothing.
    const auto next = run({});
    REQUIRE_MESSAGE(next.exit_code == 0, next.output);
    const auto warm = nlohmann::json::parse(next.output);
    CHECK(warm["output"] == "2178309\n");
    CHECK(warm["jit"]["pages_compiled"] == 0);
    CHECK(warm["jit"]["pages_loaded"] == cold["jit"]["pages_compiled"]);
  }
}
