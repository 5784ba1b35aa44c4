// A cook target's `max_size`: textures converted with the mip levels above the cap left out, per
// target, through the real `kiln cook` and the cooked set reader.
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/textures/image.h"
#include "kiln/textures/thumbnail.h"
#include "kiln/textures/tx_file.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

test::RunResult cook(const test::TempDir& dir, const fs::path& project, const fs::path& out) {
  return test::run_process(
      {KILN_CLI, "cook", project.string(), "--out", out.string(), "--cache-root", (dir / "cache").string()});
}

std::unique_ptr<textures::TxFile> tx_of(const runtime::CookedSet& set, const std::string& file,
                                        const std::string& target = {}) {
  auto bytes = set.texture(file, target);
  REQUIRE_MESSAGE(bytes, bytes.error().message);
  auto tx = textures::TxFile::open_memory(file, *bytes);
  REQUIRE_MESSAGE(tx, tx.error().message);
  return std::move(*tx);
}

std::uint32_t longer_side(const textures::TxFile& tx) {
  return std::max(tx.info().levels.front().width, tx.info().levels.front().height);
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a target's max_size ships its textures from the first mip level that fits - other targets keep theirs") {
    test::TempDir dir("texture-caps");
    const fs::path project = test::copy_assets(dir);
    test::spit(project / "kiln.json",
               R"({"cook": {"targets": [{"backend": "spirv", "max_size": 32}, {"backend": "glsl"}]}})");
    const auto r = cook(dir, project, dir / "out");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    auto set = runtime::CookedSet::open(dir / "out");
    REQUIRE_MESSAGE(set, set.error().message);
    const auto source = textures::read_image(project / "textures" / "brick.png");
    REQUIRE(source);
    REQUIRE(std::max(source->width, source->height) > 32);

    const auto capped = tx_of(**set, "textures/brick.png");
    const auto whole = tx_of(**set, "textures/brick.png", "glsl-vulkan1.0");
    CHECK(longer_side(*capped) <= 32);
    CHECK(longer_side(*whole) == std::max(source->width, source->height));
    // The default target's own name gives its capped copy.
    CHECK(longer_side(*tx_of(**set, "textures/brick.png", "spirv-vulkan1.0")) <= 32);

    // The capped chain is the whole chain without its top levels: level 0 is level k, texel for texel.
    const std::size_t k = whole->info().levels.size() - capped->info().levels.size();
    REQUIRE(k > 0);
    CHECK(whole->info().levels[k].width == capped->info().levels[0].width);
    for (std::size_t l = 0; l < capped->info().levels.size(); ++l) {
      auto a = textures::export_level(*capped, l, std::uint64_t(1) << 30);
      auto b = textures::export_level(*whole, l + k, std::uint64_t(1) << 30);
      REQUIRE(a);
      REQUIRE(b);
      CHECK_MESSAGE(a->pixels == b->pixels, "level " << l);
    }
    // Every texture is capped for the default target.
    for (const auto& file : (*set)->ids(runtime::EntryKind::kTexture))
      if (file.rfind("textures/", 0) == 0) CHECK_MESSAGE(longer_side(*tx_of(**set, file)) <= 32, file);
  }

  TEST_CASE("a max_size that is not a whole number of pixels is refused naming its place") {
    test::TempDir dir("texture-caps");
    const fs::path project = test::copy_assets(dir);
    for (const std::string bad : {"0", "-4", "12.5", "\"big\"", "70000"}) {
      test::spit(project / "kiln.json", R"({"cook": {"targets": [{"backend": "spirv", "max_size": )" + bad + "}]}}");
      const auto r = cook(dir, project, dir / "out");
      CHECK_MESSAGE(r.exit_code == 1, bad << ": " << r.output);
      CHECK_MESSAGE(r.output.find("/cook/targets/0/max_size: expected a whole number of pixels") != std::string::npos,
                    r.output);
    }
    CHECK_FALSE(fs::exists(dir / "out"));
  }

  TEST_CASE("kiln texture extract writes the .tx a set ships - which texture info and oiiotool read") {
    test::TempDir dir("texture-caps");
    const fs::path project = test::copy_assets(dir);
    test::spit(project / "kiln.json",
               R"({"cook": {"targets": [{"backend": "spirv"}, {"backend": "glsl", "max_size": 16}]}})");
    REQUIRE(cook(dir, project, dir / "out").exit_code == 0);
    auto set = runtime::CookedSet::open(dir / "out");
    REQUIRE(set);
    const auto source = textures::read_image(project / "textures" / "brick.png");
    REQUIRE(source);
    for (const std::string target : {"", "glsl-vulkan1.0"}) {
      std::vector<std::string> argv = {
          KILN_CLI, "texture", "extract", (dir / "out").string(), "textures/brick.png", (dir / "brick.tx").string()};
      if (!target.empty()) argv.insert(argv.end(), {"--target", target});
      auto r = test::run_process(argv);
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      const auto shipped = (*set)->texture("textures/brick.png", target);
      REQUIRE(shipped);
      CHECK(test::slurp(dir / "brick.tx") ==
            std::string(reinterpret_cast<const char*>(shipped->data()), shipped->size()));
      r = test::run_process({"/usr/bin/oiiotool", "--info", (dir / "brick.tx").string()});
      CHECK_MESSAGE(r.exit_code == 0, r.output);
      r = test::run_process({KILN_CLI, "texture", "info", (dir / "brick.tx").string(), "--json"});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      // The default target ships the whole picture, the capped one its first level of at most 16.
      const auto width = nlohmann::json::parse(r.output)["levels"][0]["width"].get<std::uint32_t>();
      if (target.empty())
        CHECK(width == source->width);
      else
        CHECK(width <= 16);
    }
    auto r = test::run_process({KILN_CLI, "texture", "extract", (dir / "out").string(), "textures/brick.png",
                                "--target", "nope", (dir / "x.tx").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.output.find("no target nope (it has spirv-vulkan1.0, glsl-vulkan1.0)") != std::string::npos,
                  r.output);
    // The reader refuses it too: an engine asking for a target the set lacks gets no texture.
    CHECK_FALSE((*set)->texture("textures/brick.png", "nope"));
    r = test::run_process(
        {KILN_CLI, "texture", "extract", (dir / "out").string(), "textures/none.png", (dir / "x.tx").string()});
    CHECK(r.exit_code == 1);
    CHECK_FALSE(fs::exists(dir / "x.tx"));
  }
}
