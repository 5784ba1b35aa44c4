#include <doctest/doctest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/cache/hash.h"
#include "kiln/runtime/pack.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

TEST_SUITE("editor") {

TEST_CASE("the player runs a cooked project with zero compiles - and links neither glslang nor LLVM") {
  test::TempDir dir("player");
  const std::string cache = "--cache-root=" + (dir / "cache").string();
  auto cooked = test::run_process({KILN_CLI, "cook", (fs::path(KILN_SOURCE_DIR) / "assets").string(), "--out",
                                   (dir / "out").string(), cache});
  REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
  // Its own, empty cache root: the compiled pages come from the scripts pack.
  auto played = test::run_process({KILN_PLAYER, (dir / "out").string(), "--cache-root", (dir / "player-cache").string(), "--json"});
  REQUIRE_MESSAGE(played.exit_code == 0, played.output);
  const auto report = nlohmann::json::parse(played.output.substr(played.output.find('{')));
  CHECK(report["materials"] == 8);
  CHECK(report["variants_resolved"].get<int>() >= 8);
  CHECK(report["compiles"] == 0);
  CHECK(report["pages_interpreted"] == 0);
  CHECK(report["pages_loaded"].get<int>() >= 3);
  CHECK(report["textures_checked"] == 6);
  REQUIRE(report["scripts"].size() == 3);
  for (const auto& s : report["scripts"]) {
    CHECK(s["ok"] == true);
    // The same output as the interpreter's (kiln script run --jit off) on the source.
    auto reference = test::run_process(
        {KILN_CLI, "script", "run", (fs::path(KILN_SOURCE_DIR) / "assets" / s["script"].get<std::string>()).string(), "--jit", "off"});
    REQUIRE(reference.exit_code == 0);
    CHECK(s["output_digest"] == cache::hex64(cache::xxh3_64(reference.output)).substr(0, 12));
  }
  auto libraries = test::run_process({"/usr/bin/ldd", KILN_PLAYER});
  REQUIRE(libraries.exit_code == 0);
  CHECK(libraries.output.find("libLLVM") == std::string::npos);
  CHECK(libraries.output.find("glslang") == std::string::npos);
  CHECK(libraries.output.find("SPIRV") == std::string::npos);
  CHECK(libraries.output.find("spirv-cross") == std::string::npos);
}

TEST_CASE("the player names the pack - the variant's key and the material when a variant is missing or a pack is bad") {
  test::TempDir dir("player");
  fs::create_directories(dir / "out");
  runtime::PackWriter shaders(runtime::PackKind::kShaders, "test");
  const std::string material = R"({"shader": "shaders/lit", "keywords": ["FOG"], "variants": ["shaders/lit|Forward|FOG"]})";
  shaders.add("material:materials/foggy.json", std::vector<std::byte>(reinterpret_cast<const std::byte*>(material.data()),
                                                                      reinterpret_cast<const std::byte*>(material.data()) + material.size()));
  REQUIRE(shaders.write(dir / "out" / "shaders.pack"));
  REQUIRE(runtime::PackWriter(runtime::PackKind::kScripts, "scripts x y").write(dir / "out" / "scripts.pack"));
  REQUIRE(runtime::PackWriter(runtime::PackKind::kTextures, "t").write(dir / "out" / "textures.pack"));
  auto missing = test::run_process({KILN_PLAYER, (dir / "out").string(), "--cache-root", (dir / "cache").string()});
  CHECK(missing.exit_code == 1);
  CHECK(missing.output.find((dir / "out" / "shaders.pack").string() + ": no variant shaders/lit|Forward|FOG (" +
                            runtime::pack_key("shaders/lit|Forward|FOG").hex().substr(0, 12) +
                            "), asked for by materials/foggy.json") != std::string::npos);

  std::ofstream(dir / "out" / "scripts.pack", std::ios::trunc) << "KILNPACK";
  auto truncated = test::run_process({KILN_PLAYER, (dir / "out").string(), "--cache-root", (dir / "cache").string()});
  CHECK(truncated.exit_code == 1);
  CHECK(truncated.output.find((dir / "out" / "scripts.pack").string() + ": truncated pack") != std::string::npos);
}
}
