// Interruptions at random points: cooks and editor sessions killed (SIGKILL) 50 times, at moments
// drawn from a fixed seed across the length of each run. After every kill the output directory
// holds one complete set (the old or the new), and the next run accepts or rebuilds what the
// killed one left in the caches. Through the real `kiln` processes.
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "editor_process.h"
#include "kiln/runtime/cooked_set.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

using test::slurp;

using test::copy_assets;

std::vector<std::string> cook_argv(const fs::path& project, const fs::path& out, const fs::path& cache) {
  return {KILN_CLI, "cook", project.string(), "--out", out.string(), "--cache-root", cache.string()};
}

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE(
      "50 kills at random points of cooks and editor sessions lose nothing - the output is always one complete set") {
    test::TempDir dir("interrupt");
    const fs::path a = copy_assets(dir, "a"), b = copy_assets(dir, "b");
    // b differs from a in every pack: a script, a shader and a material's texture.
    std::ofstream(b / "scripts/gameplay_update.lua", std::ios::app) << "print(2)\n";
    std::ofstream(b / "shaders/unlit.frag", std::ios::app) << "// b\n";
    fs::copy_file(b / "textures/sky.png", b / "textures/sky2.png");
    {
      std::string sky = slurp(b / "materials/sky.json");
      sky.replace(sky.find("textures/sky.png"), 16, "textures/sky2.png");
      std::ofstream(b / "materials/sky.json", std::ios::trunc) << sky;
    }
    const fs::path out = dir / "out", cache = dir / "cache";

    // The two complete sets, and how long cold and warm cooks take here.
    auto timed_cook = [&](const fs::path& project) {
      const auto t0 = Clock::now();
      const auto r = test::run_process(cook_argv(project, out, cache));
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      return ms_since(t0);
    };
    const double cold_ms = timed_cook(b);
    const std::string set_b = slurp(out / "manifest.json");
    timed_cook(a);  // compiles what a has that b has not
    const std::string set_a = slurp(out / "manifest.json");
    REQUIRE(set_a != set_b);
    // A warm cook serves everything from the caches: the fastest of two is the span kills land in,
    // so that most land before the cook ends.
    const double warm_ms = std::min(timed_cook(a), timed_cook(b));

    std::mt19937 random(20261201);
    int cooks_killed = 0, editors_killed = 0, finished_anyway = 0;
    for (int i = 0; i < 50; ++i) {
      CAPTURE(i);
      if (i % 10 == 9) {
        // An editor session killed while it loads or compiles; the next one starts clean.
        test::ChildProcess editor({KILN_CLI, "editor", a.string(), "--json", "--cache-root", cache.string()});
        std::this_thread::sleep_for(
            std::chrono::milliseconds(std::uniform_int_distribution<int>(0, int(cold_ms))(random)));
        editor.kill(SIGKILL);
        editors_killed += editor.wait() == 128 + SIGKILL;
        test::EditorProcess next({KILN_CLI, "editor", a.string(), "--json", "--stdin", "--cache-root", cache.string()});
        const auto ready = next.next();
        CHECK(ready["event"] == "ready");
        CHECK_MESSAGE(ready["errors"].empty(), ready.dump());
        next.process.write_line("quit");
        CHECK(next.process.wait() == 0);
        continue;
      }
      const bool cold = i % 7 == 3;  // now and then from an empty cache: kills land in cache writes too
      if (cold) fs::remove_all(cache);
      const fs::path& project = random() % 2 ? a : b;
      test::ChildProcess cook(cook_argv(project, out, cache));
      const double span = cold ? cold_ms : warm_ms;
      std::this_thread::sleep_for(
          std::chrono::microseconds(std::uniform_int_distribution<int>(0, int(span * 1000))(random)));
      cook.kill(SIGKILL);
      const int status = cook.wait();
      cooks_killed += status == 128 + SIGKILL;
      finished_anyway += status == 0;
      // One complete set, the old or the new: the manifest names it, and every pack matches it.
      const std::string manifest = slurp(out / "manifest.json");
      CHECK((manifest == set_a || manifest == set_b));
      auto set = runtime::CookedSet::open(out);
      REQUIRE_MESSAGE(set, set.error().message);
      auto checked = (*set)->check();
      CHECK_MESSAGE(checked, (checked ? "" : checked.error().message));
    }
    MESSAGE("killed " << cooks_killed << " cooks and " << editors_killed << " editor sessions; " << finished_anyway
                      << " cooks finished before their kill");
    CHECK(cooks_killed >= 30);
    CHECK(editors_killed == 5);

    // What the kills left in the caches is accepted or rebuilt: the next cooks succeed and give
    // exactly the sets of uninterrupted cooks, and the shader cache holds no corrupt blob.
    auto r = test::run_process(cook_argv(b, out, cache));
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(slurp(out / "manifest.json") == set_b);
    r = test::run_process(cook_argv(a, out, cache));
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(slurp(out / "manifest.json") == set_a);
    r = test::run_process({KILN_CLI, "cache", "verify", "--json", "--cache-root", cache.string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(nlohmann::json::parse(r.output.substr(r.output.find('{')))["corrupt"] == 0);
    // Only the set and the cook lock in the output directory: no temp file of a killed cook stays.
    for (const auto& e : fs::directory_iterator(out)) {
      const std::string name = e.path().filename().string();
      CHECK_MESSAGE((name == "manifest.json" || name == ".lock" || name == ".shaders-inputs" ||
                     name == ".shaders-entries" || name == ".shaders-identity" || name == ".textures-inputs" ||
                     name == ".textures-identity" || e.path().extension() == ".pack"),
                    name);
    }
  }
}
