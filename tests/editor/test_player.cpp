#include <doctest/doctest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/cache/hash.h"
#include "kiln/runtime/cooked_set.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

TEST_SUITE("editor") {
  TEST_CASE("the player runs a cooked project with zero compiles - and links neither glslang nor LLVM") {
    test::TempDir dir("player");
    const std::string cache = "--cache-root=" + (dir / "cache").string();
    auto cooked = test::run_process(
        {KILN_CLI, "cook", (fs::path(KILN_SOURCE_DIR) / "assets").string(), "--out", (dir / "out").string(), cache});
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
    // Its own, empty cache root: the compiled pages come from the scripts pack.
    auto played = test::run_process(
        {KILN_PLAYER, (dir / "out").string(), "--cache-root", (dir / "player-cache").string(), "--json"});
    REQUIRE_MESSAGE(played.exit_code == 0, played.output);
    REQUIRE_MESSAGE(played.output.find("scripts cooked by build") == std::string::npos,
                    "kiln and kiln-player come from different builds: build both. " << played.output);
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
          {KILN_CLI, "script", "run", (fs::path(KILN_SOURCE_DIR) / "assets" / s["script"].get<std::string>()).string(),
           "--jit", "off"});
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
}

TEST_SUITE("editor") {
  TEST_CASE("the player prints what each script prints - --quiet leaves digests only - --json carries the output") {
    test::TempDir dir("player-output");
    auto cooked = test::run_process({KILN_CLI, "cook", (fs::path(KILN_SOURCE_DIR) / "assets").string(), "--out",
                                     (dir / "out").string(), "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
    auto played = test::run_process({KILN_PLAYER, (dir / "out").string()});
    REQUIRE_MESSAGE(played.exit_code == 0, played.output);
    auto quiet = test::run_process({KILN_PLAYER, (dir / "out").string(), "--quiet"});
    REQUIRE_MESSAGE(quiet.exit_code == 0, quiet.output);
    auto json = test::run_process({KILN_PLAYER, (dir / "out").string(), "--json"});
    REQUIRE_MESSAGE(json.exit_code == 0, json.output);
    const auto report = nlohmann::json::parse(json.output.substr(json.output.find('{')));
    REQUIRE(report["scripts"].size() == 3);
    for (const auto& s : report["scripts"]) {
      const std::string script = s["script"];
      CAPTURE(script);
      auto reference = test::run_process(
          {KILN_CLI, "script", "run", (fs::path(KILN_SOURCE_DIR) / "assets" / script).string(), "--jit", "off"});
      REQUIRE(reference.exit_code == 0);
      REQUIRE_FALSE(reference.output.empty());
      // Printed as the script prints it, under a line naming the script.
      CHECK(played.output.find("player: " + script + "\n" + reference.output) != std::string::npos);
      CHECK(quiet.output.find(reference.output) == std::string::npos);
      CHECK(quiet.output.find(s["output_digest"].get<std::string>()) != std::string::npos);
      CHECK(s["output"] == reference.output);
    }
  }
}

namespace {

// A hand-made set: packs with valid checksums and a manifest naming them, whatever they hold.
fs::path write_set(const fs::path& dir, const runtime::PackWriter& shaders, const runtime::PackWriter& scripts,
                   const runtime::PackWriter& textures) {
  fs::create_directories(dir);
  runtime::Manifest manifest;
  for (const runtime::PackWriter* w : {&shaders, &scripts, &textures}) {
    auto bytes = w->encode("pack");
    REQUIRE(bytes);
    const std::uint64_t checksum = runtime::pack_checksum(*bytes);
    const std::string file = runtime::pack_file_name(w->kind(), checksum);
    std::ofstream(dir / file, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes->data()), std::streamsize(bytes->size()));
    manifest.packs[w->kind()] = {file, bytes->size(), checksum};
  }
  std::ofstream(dir / runtime::kManifestFile) << runtime::encode_manifest(manifest);
  return dir /
         runtime::pack_file_name(runtime::PackKind::kShaders, manifest.packs[runtime::PackKind::kShaders].checksum);
}

std::vector<std::byte> bytes_of(const std::string& s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("the player names the pack - the entry and the material when a variant or texture is missing") {
    test::TempDir dir("player");
    runtime::MaterialRecord foggy{"materials/foggy.json",
                                  "shaders/lit",
                                  {"FOG"},
                                  {},
                                  {{"albedo_map", "textures/a.png"}},
                                  {{"Forward", "shaders/lit|Forward|FOG", {}, {}}}};
    runtime::PackWriter shaders(runtime::PackKind::kShaders,
                                runtime::encode_shaders_identity({{{"spirv-vulkan1.0", "ns"}}}));
    shaders.add(runtime::entry_name(runtime::EntryKind::kMaterial, foggy.file), runtime::encode_material_record(foggy));
    const runtime::PackWriter scripts(runtime::PackKind::kScripts, "scripts x y"),
        textures(runtime::PackKind::kTextures, "t");
    const fs::path pack = write_set(dir / "out", shaders, scripts, textures);
    auto missing = test::run_process({KILN_PLAYER, (dir / "out").string(), "--cache-root", (dir / "cache").string()});
    CHECK(missing.exit_code == 1);
    const std::string variant = "variant:spirv-vulkan1.0:shaders/lit|Forward|FOG";
    CHECK_MESSAGE(missing.output.find(pack.string() + ": no entry '" + variant + "' (" +
                                      runtime::pack_key(variant).hex().substr(0, 12) +
                                      "), asked for by materials/foggy.json") != std::string::npos,
                  missing.output);
    CHECK_MESSAGE(missing.output.find(": no entry 'texture:textures/a.png' (") != std::string::npos, missing.output);

    // A pack the manifest names, cut short.
    std::ofstream(pack, std::ios::trunc) << "KILNPACK";
    auto truncated = test::run_process({KILN_PLAYER, (dir / "out").string(), "--cache-root", (dir / "cache").string()});
    CHECK(truncated.exit_code == 1);
    CHECK(truncated.output.find(pack.string() + ": truncated pack") != std::string::npos);
    // No manifest at all.
    fs::remove(dir / "out" / runtime::kManifestFile);
    auto none = test::run_process({KILN_PLAYER, (dir / "out").string(), "--cache-root", (dir / "cache").string()});
    CHECK(none.exit_code == 1);
    CHECK(none.output.find("manifest.json: no manifest") != std::string::npos);
  }

  TEST_CASE("hand-made packs with valid checksums are refused naming the entry - never a crash") {
    test::TempDir dir("player");
    const runtime::PackWriter scripts(runtime::PackKind::kScripts, "scripts x y"),
        textures(runtime::PackKind::kTextures, "t");
    runtime::MaterialRecord good{
        "materials/m.json", "shaders/lit", {}, {}, {}, {{"Forward", "shaders/lit|Forward|", {}, {}}}};
    std::vector<std::byte> record = runtime::encode_material_record(good);
    const std::vector<std::pair<std::string, std::vector<std::byte>>> payloads = {
        {"json", bytes_of(R"({"variants": 5})")},
        {"null", bytes_of("null")},
        {"empty", {}},
        {"truncated", std::vector<std::byte>(record.begin(), record.begin() + long(record.size()) / 2)},
        {"huge count",
         [&] {
           auto r = record;
           r[8 + 4 + good.file.size() + 4 + good.shader.size()] = std::byte{0xff};  // the keyword count
           return r;
         }()},
    };
    for (const auto& [case_name, payload] : payloads) {
      const auto& what = case_name;  // lambdas (CAPTURE) cannot name a binding in clang 14
      CAPTURE(what);
      runtime::PackWriter shaders(runtime::PackKind::kShaders,
                                  runtime::encode_shaders_identity({{{"spirv-vulkan1.0", "ns"}}}));
      shaders.add("material:materials/m.json", payload);
      const fs::path pack = write_set(dir / what, shaders, scripts, textures);
      auto played = test::run_process({KILN_PLAYER, (dir / what).string(), "--cache-root", (dir / "cache").string()});
      CHECK(played.exit_code == 1);
      CHECK_MESSAGE(played.output.find(pack.string() + ": material:materials/m.json: ") != std::string::npos,
                    played.output);
    }
  }

  TEST_CASE("a garbage program or texture entry with valid checksums is refused naming it") {
    test::TempDir dir("player");
    const runtime::ShadersIdentity identity{{{"spirv-vulkan1.0", "ns"}}};
    std::string noise(4096, '\0');
    for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = char((i * 2654435761u) >> 13);
    SUBCASE("program") {
      const runtime::PackWriter shaders(runtime::PackKind::kShaders, runtime::encode_shaders_identity(identity));
      runtime::PackWriter scripts(runtime::PackKind::kScripts, "scripts x y");
      scripts.add(runtime::entry_name(runtime::EntryKind::kProgram, "scripts/x.lua"), bytes_of(noise));
      write_set(dir / "out", shaders, scripts, runtime::PackWriter(runtime::PackKind::kTextures, "t"));
      auto played = test::run_process({KILN_PLAYER, (dir / "out").string()});
      CHECK(played.exit_code == 1);
      CHECK_MESSAGE(played.output.find(": scripts/x.lua: ") != std::string::npos, played.output);
    }
    SUBCASE("texture") {
      const runtime::PackWriter shaders(runtime::PackKind::kShaders, runtime::encode_shaders_identity(identity));
      runtime::PackWriter textures(runtime::PackKind::kTextures, "t");
      textures.add(runtime::entry_name(runtime::EntryKind::kTexture, "textures/x.png"), bytes_of("II*\0" + noise));
      write_set(dir / "out", shaders, runtime::PackWriter(runtime::PackKind::kScripts, "scripts x y"), textures);
      auto played = test::run_process({KILN_PLAYER, (dir / "out").string()});
      CHECK(played.exit_code == 1);
      CHECK_MESSAGE(played.output.find(": texture:textures/x.png: ") != std::string::npos, played.output);
    }
  }
}
