// A cooked set through the real `kiln cook` and `kiln-player`: a failed or interrupted cook leaves
// the previous set as it was, and the player refuses a set that is mixed or damaged instead of
// running part of it.

#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "cook_run.h"
#include "kiln/jit/bytecode.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

using test::copy_assets;

using test::slurp;
using test::spit;

// Every file of a directory (name -> bytes).
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out[e.path().filename().string()] = slurp(e.path());
  return out;
}

using test::pack_file;

test::RunResult cook(const fs::path& project, const fs::path& out, const fs::path& cache,
                     std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {KILN_CLI,     "cook",         project.string(), "--out",
                                   out.string(), "--cache-root", cache.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return test::run_process(argv);
}

test::RunResult play(const fs::path& out, const fs::path& cache, bool json = false) {
  std::vector<std::string> argv = {KILN_PLAYER, out.string(), "--cache-root", cache.string()};
  if (json) argv.push_back("--json");
  return test::run_process(argv);
}

nlohmann::json json_of(const test::RunResult& r) {
  const auto at = r.output.find("\n{");
  return nlohmann::json::parse(r.output.substr(at == std::string::npos ? r.output.find('{') : at + 1));
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a failed cook leaves the previous packs byte-identical and loadable") {
    test::TempDir dir("cookset");
    const fs::path project = copy_assets(dir);
    const fs::path out = dir / "out", cache = dir / "cache";
    auto good = cook(project, out, cache);
    REQUIRE_MESSAGE(good.exit_code == 0, good.output);
    const auto before = snapshot(out);
    REQUIRE(play(out, dir / "player-cache").exit_code == 0);
    // Every cook below changes the scripts, so a cook that wrote anything would change the set.
    std::ofstream(project / "scripts" / "gameplay_update.lua", std::ios::app) << "print(1)\n";

    SUBCASE("a GLSL error in one include") {
      const std::string lit = slurp(project / "shaders" / "lit.frag");
      spit(project / "shaders" / "lit.frag",
           std::string(lit).replace(lit.find("common/camera.glsl"), 18, "common/nope.glsl"));
      auto failed = cook(project, out, cache);
      CHECK(failed.exit_code == 1);
    }
    SUBCASE("a texture that does not convert") {
      spit(project / "textures" / "brick.png", "\x89PNG\r\n\x1a\n not really a png");
      auto failed = cook(project, out, cache);
      CHECK(failed.exit_code == 1);
    }
    SUBCASE("the output disk is full") {
      // A file size limit makes every write past 16 KiB fail (EFBIG), as a full disk would.
      auto failed = test::run_process(
          {"/bin/sh", "-c", "ulimit -f 32; trap '' XFSZ; exec \"$0\" cook \"$1\" --out \"$2\" --cache-root \"$3\"",
           KILN_CLI, project.string(), out.string(), (dir / "small-cache").string()});
      CHECK(failed.exit_code == 1);
    }
    CHECK(snapshot(out) == before);
    auto played = play(out, dir / "player-cache");
    CHECK_MESSAGE(played.exit_code == 0, played.output);
  }

  TEST_CASE("a cook killed at any moment leaves a set the player loads") {
    test::TempDir dir("cookset");
    const fs::path a = copy_assets(dir, "a"), b = copy_assets(dir, "b");
    // b differs from a in every pack: a script, a material's texture, a shader.
    std::ofstream(b / "scripts" / "gameplay_update.lua", std::ios::app) << "print(2)\n";
    fs::copy_file(b / "textures" / "sky.png", b / "textures" / "sky2.png");
    const std::string sky = slurp(b / "materials" / "sky.json");
    spit(b / "materials" / "sky.json", std::string(sky).replace(sky.find("textures/sky.png"), 16, "textures/sky2.png"));
    std::ofstream(b / "shaders" / "unlit.frag", std::ios::app) << "// b\n";
    const fs::path out = dir / "out", cache = dir / "cache";
    REQUIRE(cook(b, out, cache).exit_code == 0);  // warms the caches for both
    REQUIRE(cook(a, out, cache).exit_code == 0);
    int killed = 0;
    for (int i = 0; i < 16; ++i) {
      CAPTURE(i);
      const fs::path& project = i % 2 ? a : b;
      test::ChildProcess child(
          {KILN_CLI, "cook", project.string(), "--out", out.string(), "--cache-root", cache.string()});
      std::this_thread::sleep_for(std::chrono::milliseconds(5 + 12 * i));
      child.kill(SIGKILL);
      killed += child.wait() == 128 + SIGKILL;
      auto played = play(out, dir / "player-cache");
      REQUIRE_MESSAGE(played.exit_code == 0, played.output);
    }
    CHECK(killed > 0);
  }

  TEST_CASE("the player refuses a set whose packs do not match their manifest") {
    test::TempDir dir("cookset");
    const fs::path a = copy_assets(dir, "a"), b = copy_assets(dir, "b");
    fs::copy_file(b / "textures" / "sky.png", b / "textures" / "sky2.png");
    const std::string sky = slurp(b / "materials" / "sky.json");
    spit(b / "materials" / "sky.json", std::string(sky).replace(sky.find("textures/sky.png"), 16, "textures/sky2.png"));
    REQUIRE(cook(a, dir / "old", dir / "cache").exit_code == 0);
    REQUIRE(cook(b, dir / "new", dir / "cache").exit_code == 0);
    // New materials with the old textures: sky2.png is missing from the textures pack.
    spit(pack_file(dir / "new", "textures"), slurp(pack_file(dir / "old", "textures")));
    auto mixed = play(dir / "new", dir / "player-cache");
    CHECK(mixed.exit_code == 1);
    CHECK_MESSAGE(mixed.output.find(pack_file(dir / "new", "textures").filename().string() +
                                    ": does not match the manifest") != std::string::npos,
                  mixed.output);
  }

  TEST_CASE("a one-byte flip in an entry name or a pack identity is refused") {
    test::TempDir dir("cookset");
    REQUIRE(cook(fs::path(KILN_SOURCE_DIR) / "assets", dir / "out", dir / "cache").exit_code == 0);
    const auto good = snapshot(dir / "out");
    SUBCASE("a material's name") {
      const fs::path shaders = pack_file(dir / "out", "shaders");
      std::string bytes = slurp(shaders);
      const auto at = bytes.find("materials/foliage.json");
      REQUIRE(at != std::string::npos);
      bytes[at] ^= 0x20;
      spit(shaders, bytes);
      auto played = play(dir / "out", dir / "player-cache");
      CHECK(played.exit_code == 1);
      CHECK_MESSAGE(played.output.find(shaders.filename().string() + ": corrupt pack") != std::string::npos,
                    played.output);
    }
    SUBCASE("the scripts pack's identity") {
      const fs::path scripts = pack_file(dir / "out", "scripts");
      std::string bytes = slurp(scripts);
      const auto at = bytes.find("scripts ");
      REQUIRE(at != std::string::npos);
      bytes[at + 9] ^= 0x01;
      spit(scripts, bytes);
      auto played = play(dir / "out", dir / "player-cache");
      CHECK(played.exit_code == 1);
      CHECK_MESSAGE(played.output.find(scripts.filename().string() + ": corrupt pack") != std::string::npos,
                    played.output);
    }
  }

  TEST_CASE("a damaged compiled page is reported and its script runs interpreted") {
    test::TempDir dir("cookset");
    REQUIRE(cook(fs::path(KILN_SOURCE_DIR) / "assets", dir / "out", dir / "cache").exit_code == 0);
    const fs::path scripts = pack_file(dir / "out", "scripts");
    std::string bytes = slurp(scripts);
    // A compiled page's payload starts with its header's magic "KAOT"; damage the machine code of
    // every page (some are never asked for: their functions are inlined wherever they are called).
    int pages = 0;
    for (auto at = bytes.find("KAOT"); at != std::string::npos; at = bytes.find("KAOT", at + 4), ++pages) {
      std::uint32_t entries = 0, tail_words = 0;  // the header: magic and five words, tail words last
      std::memcpy(&entries, bytes.data() + at + 12, 4);
      std::memcpy(&tail_words, bytes.data() + at + 20, 4);
      const std::size_t code_byte = at + 24 + 2 * std::size_t(entries) + 4 * (jit::kPageWords + tail_words) + 40;
      REQUIRE(code_byte < bytes.size());
      bytes[code_byte] ^= 0xff;
    }
    REQUIRE(pages > 0);
    spit(scripts, bytes);
    auto played = play(dir / "out", dir / "player-cache", true);
    CHECK_MESSAGE(played.exit_code == 0, played.output);
    REQUIRE_MESSAGE(played.output.find("scripts cooked by build") == std::string::npos,
                    "kiln and kiln-player come from different builds: build both. " << played.output);
    CHECK_MESSAGE(played.output.find("is corrupt (checksum mismatch): the page runs interpreted") != std::string::npos,
                  played.output);
    const auto report = json_of(played);
    CHECK(report["pages_damaged"].get<int>() >= 1);
    CHECK(report["pages_loaded"] == 0);
    CHECK(report["pages_interpreted"].get<int>() >= 1);
    for (const auto& s : report["scripts"]) CHECK(s["ok"] == true);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("the player reads textures in place - with no writable cache directory and many players at once") {
    test::TempDir dir("cookset");
    REQUIRE(cook(fs::path(KILN_SOURCE_DIR) / "assets", dir / "out", dir / "cache").exit_code == 0);
    // A cache root below a regular file cannot be created, whoever runs the test (root included).
    spit(dir / "a-file", "");
    auto played = play(dir / "out", dir / "a-file" / "cache", true);
    REQUIRE_MESSAGE(played.exit_code == 0, played.output);
    CHECK(json_of(played)["textures_checked"] == 6);
    // Nothing is extracted anywhere: players started together cannot trip over each other's files.
    for (int round = 0; round < 5; ++round) {
      std::vector<std::unique_ptr<test::ChildProcess>> players;
      for (int i = 0; i < 4; ++i)
        players.push_back(std::make_unique<test::ChildProcess>(std::vector<std::string>{
            KILN_PLAYER, (dir / "out").string(), "--cache-root", (dir / "shared-cache").string()}));
      for (auto& p : players) {
        const std::string output = p->read_all();
        CHECK_MESSAGE(p->wait() == 0, output);
      }
    }
    CHECK_FALSE(fs::exists(dir / "shared-cache" / "textures"));
  }
}
