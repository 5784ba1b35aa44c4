// A warm cook keeps the textures pack of the set it replaces when every texture's bytes, settings
// and targets are what that pack was made from: no conversion or encoding is read.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "cache_entries.h"
#include "child_process.h"
#include "cook_run.h"
#include "kiln/runtime/cooked_set.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

using test::cook;
using test::Cooked;
using test::slurp;

bool kept(const Cooked& c) { return c.run.output.find("textures unchanged since the set in") != std::string::npos; }

// The texture `file` as the set in `out` ships it.
std::string packed(const fs::path& out, const std::string& file) {
  auto set = runtime::CookedSet::open(out);
  REQUIRE_MESSAGE(set, set.error().message);
  auto bytes = (*set)->texture(file);
  REQUIRE_MESSAGE(bytes, bytes.error().message);
  return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

// Whether a cook of `project` into `out` mapped libtiff (the loader's trace written to `trace`).
bool cook_maps_libtiff(const fs::path& trace, const fs::path& project, const fs::path& out, const fs::path& cache,
                       std::map<std::string, std::string> env = {}) {
  const std::vector<std::string> argv = {KILN_CLI,     "cook",         project.string(), "--out",
                                         out.string(), "--cache-root", cache.string()};
  return test::libraries_mapped_by_tools(argv, trace, std::move(env)).count("libtiff.so.6") > 0;
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a cook whose textures did not change keeps the set's textures pack - reading no conversion") {
    test::TempDir dir("cook");
    const fs::path project = test::copy_assets(dir), out = dir / "out", cache = dir / "cache";
    const Cooked cold = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(cold.run.exit_code == 0, cold.run.output);
    CHECK(cold.report["textures"]["unchanged"] == 0);
    const fs::path pack = test::pack_file(out, "textures");
    const std::string pack_bytes = slurp(pack);

    // No conversion is read: with the textures cache gone, nothing converts either. The report
    // says of the textures what the cook that made the pack said.
    fs::remove_all(cache / "textures");
    const Cooked warm = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(warm.run.exit_code == 0, warm.run.output);
    CHECK(kept(warm));
    const auto& textures = warm.report["textures"];
    CHECK(textures["unchanged"] == textures["files"]);
    CHECK(textures["converted"] == 0);
    CHECK(textures["cache_hits"] == 0);
    for (const char* field : {"files", "formats", "gpu_bytes", "rgba8_gpu_bytes", "from_tx", "target_copies"})
      CHECK_MESSAGE(textures[field] == cold.report["textures"][field], field);
    CHECK(warm.run.output.find("6 unchanged: the pack is kept") != std::string::npos);
    CHECK(test::pack_file(out, "textures") == pack);
    CHECK(slurp(pack) == pack_bytes);
    test::check_cooked_set(out);
    CHECK(test::cache_entries(cache, "textures").empty());  // nothing converted, nothing stored

    // A source's bytes are an input: that texture ships as it is now.
    const std::string brick = packed(out, "textures/brick.png");
    fs::copy_file(project / "textures/sky.png", project / "textures/brick.png", fs::copy_options::overwrite_existing);
    const Cooked edited = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(edited.run.exit_code == 0, edited.run.output);
    CHECK_FALSE(kept(edited));
    CHECK(edited.report["textures"]["unchanged"] == 0);
    CHECK(packed(out, "textures/brick.png") != brick);
    test::check_cooked_set(out);
    REQUIRE(kept(cook(dir, project, out, cache)));

    // So are its settings: a sidecar that asks for another colour space converts it again.
    std::ofstream(project / "textures/sky.png.json") << R"({"color_space": "linear"})";
    const Cooked linear = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(linear.run.exit_code == 0, linear.run.output);
    CHECK_FALSE(kept(linear));
    REQUIRE(kept(cook(dir, project, out, cache)));

    // An artist's .tx beside a source is what that texture is made from.
    auto made = test::run_process(
        {"/usr/bin/maketx", (project / "textures/brick.png").string(), "-o", (project / "textures/brick.tx").string()});
    REQUIRE_MESSAGE(made.exit_code == 0, made.output);
    const Cooked artist = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(artist.run.exit_code == 0, artist.run.output);
    CHECK_FALSE(kept(artist));
    CHECK(artist.report["textures"]["from_tx"] == 1);
    const Cooked artist_kept = cook(dir, project, out, cache);
    CHECK(kept(artist_kept));
    CHECK(artist_kept.report["textures"]["from_tx"] == 1);  // said as the cook that packed it said

    // And how the targets ship: block-compressed, every texture is encoded again.
    std::ofstream(project / "kiln.json")
        << R"({"cook": {"targets": [{"backend": "spirv", "textures": "bc"}]}})";  // the default target, but for BC
    const Cooked bc = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(bc.run.exit_code == 0, bc.run.output);
    CHECK_FALSE(kept(bc));
    CHECK_FALSE(bc.report["textures"]["formats"].contains("rgba8"));
    REQUIRE(kept(cook(dir, project, out, cache)));
    // The target's quality (no part of its name) too: high quality takes BC7 for colour.
    std::ofstream(project / "kiln.json")
        << R"({"cook": {"targets": [{"backend": "spirv", "textures": "bc", "texture_quality": "high"}]}})";
    const Cooked high = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(high.run.exit_code == 0, high.run.output);
    CHECK_FALSE(kept(high));
    CHECK(high.report["textures"]["formats"].contains("bc7"));
    REQUIRE(kept(cook(dir, project, out, cache)));

    // The kept pack must be whole: a damaged byte builds it again.
    test::flip_middle_byte(test::pack_file(out, "textures"));
    const Cooked damaged = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(damaged.run.exit_code == 0, damaged.run.output);
    CHECK_FALSE(kept(damaged));
    test::check_cooked_set(out);

    // --verify converts again whatever the record says.
    const Cooked verified = cook(dir, project, out, cache, {"--verify"});
    REQUIRE_MESSAGE(verified.run.exit_code == 0, verified.run.output);
    CHECK(verified.report["textures"]["unchanged"] == 0);
    CHECK_FALSE(kept(verified));
  }

  TEST_CASE("a cook whose textures are kept maps no libtiff once its version is remembered - never past a change") {
    test::TempDir dir("cook");
    const fs::path project = test::copy_assets(dir), out = dir / "out", cache = dir / "cache";
    const fs::path memo = cache / "textures" / "libtiff-version";
    REQUIRE(cook(dir, project, out, cache).run.exit_code == 0);
    const std::string remembered = slurp(memo);
    CHECK(remembered.find("\nversion LIBTIFF, Version ") != std::string::npos);
    int traces = 0;
    const auto maps_libtiff = [&](std::map<std::string, std::string> env = {}) {
      return cook_maps_libtiff(dir / ("trace-" + std::to_string(++traces)), project, out, cache, std::move(env));
    };
    CHECK_FALSE(maps_libtiff());
    // Another search path may lead the loader to another libtiff: loaded, and remembered so.
    CHECK(maps_libtiff({{"LD_LIBRARY_PATH", (dir / "lib").string()}}));
    CHECK(maps_libtiff());
    CHECK_FALSE(maps_libtiff());
    CHECK(slurp(memo) == remembered);

    // A memo naming another identity of the library file (an upgrade replaced it) is not trusted.
    // (The inode's last digit changed: the memo keeps its length.)
    const std::size_t line = remembered.find("\nlibrary ") + 9;
    const std::size_t inode_end = remembered.find(' ', remembered.find(' ', line) + 1) - 1;
    std::string stale = remembered;
    stale[inode_end] = stale[inode_end] == '7' ? '8' : '7';
    test::spit(memo, stale);
    CHECK(maps_libtiff());
    CHECK(slurp(memo) == remembered);
    // Nor is one that does not read.
    test::spit(memo, "kiln-libtiff-version 1\nlibrary");
    CHECK(maps_libtiff());
    CHECK(slurp(memo) == remembered);

    // A memo that matches is what names the textures' caches: another version there is another
    // namespace, where nothing is converted yet.
    std::string other = remembered;
    other.replace(other.find("\nversion ") + 9, std::string::npos, "LIBTIFF, Version 0.0-other\n");
    test::spit(memo, other);
    const Cooked under_other = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(under_other.run.exit_code == 0, under_other.run.output);
    CHECK(under_other.report["textures"]["converted"] == under_other.report["textures"]["files"]);
  }

  TEST_CASE("libtiff's version is remembered only for a library file settled before the load") {
    test::TempDir dir("cook");
    const fs::path project = test::copy_assets(dir), out = dir / "out", cache = dir / "cache";
    const fs::path memo = cache / "textures" / "libtiff-version";
    REQUIRE(cook(dir, project, out, cache).run.exit_code == 0);
    const std::string remembered = slurp(memo);
    // A libtiff the loader finds first through LD_LIBRARY_PATH, changed while the cook runs: what
    // is remembered of it could be of a file still being written.
    fs::create_directories(dir / "lib");
    fs::copy_file(fs::canonical("/lib/x86_64-linux-gnu/libtiff.so.6"), dir / "lib" / "libtiff.so.6");
    const std::map<std::string, std::string> env = {{"LD_LIBRARY_PATH", (dir / "lib").string()}};
    int traces = 0;
    const auto maps_libtiff = [&] {
      return cook_maps_libtiff(dir / ("trace-" + std::to_string(++traces)), project, out, cache, env);
    };
    {
      // The file keeps changing (its change time moves with each chmod) however long the cook
      // takes to load it, as one being written would.
      std::atomic<bool> done{false};
      std::thread changing([&] {
        while (!done) {
          ::chmod((dir / "lib" / "libtiff.so.6").c_str(), 0755);
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      });
      CHECK(maps_libtiff());
      done = true;
      changing.join();
    }
    CHECK(slurp(memo) == remembered);  // not written for a file that may still change
    std::this_thread::sleep_for(std::chrono::milliseconds(3100));
    CHECK(maps_libtiff());
    const std::string settled = slurp(memo);
    CHECK_MESSAGE(settled.find(" " + (dir / "lib" / "libtiff.so.6").string() + "\n") != std::string::npos, settled);
    CHECK_FALSE(maps_libtiff());
  }
}
