// The settings that choose how a texture ships: a texture's gpu_format, a target's textures and
// texture_quality, and the choice they make together.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "kiln/project/project_settings.h"
#include "kiln/textures/texture_settings.h"
#include "temp_dir.h"

using namespace kiln;
using textures::GpuFormat;

TEST_SUITE("textures") {
  TEST_CASE("gpu_format names a format per family - and a wrong one is refused naming the setting") {
    const auto parse = [](const char* text) {
      return textures::parse_texture_options("brick.png.json", nlohmann::json::parse(text));
    };
    auto one = parse(R"({"gpu_format": "bc7"})");
    REQUIRE(one);
    CHECK(one->gpu_format->bc == GpuFormat::kBc7);
    CHECK_FALSE(one->gpu_format->astc);
    auto both = parse(R"({"gpu_format": "rgba8"})");
    REQUIRE(both);
    CHECK(both->gpu_format->bc == GpuFormat::kRgba8);
    CHECK(both->gpu_format->astc == GpuFormat::kRgba8);
    auto each = parse(R"({"gpu_format": {"bc": "bc3", "astc": "astc5x5"}})");
    REQUIRE(each);
    CHECK(each->gpu_format->bc == GpuFormat::kBc3);
    CHECK(each->gpu_format->astc == GpuFormat::kAstc5x5);
    for (const auto& [text, expected] :
         {std::pair{R"({"gpu_format": "bc9"})", "brick.png.json: /gpu_format: expected a format (rgba8"},
          std::pair{R"({"gpu_format": {"bc": "astc4x4"}})", "astc4x4 is not a format of BC targets"},
          std::pair{R"({"gpu_format": {"mobile": "astc4x4"}})", "unknown family 'mobile'"},
          std::pair{R"({"gpu_format": "rgba16f"})", "expected a format"}}) {
      auto refused = parse(text);
      REQUIRE_FALSE(refused);
      CHECK_MESSAGE(refused.error().message.find(expected) != std::string::npos, refused.error().message);
    }
    // The .tx does not depend on it: a conversion is not made again when only the format changes.
    textures::TextureSettings plain, chosen;
    chosen.gpu_format.bc = GpuFormat::kBc7;
    CHECK(textures::describe_settings(plain) == textures::describe_settings(chosen));
  }

  TEST_CASE("a target's textures and texture_quality are read from kiln.json - its id says how it ships") {
    test::TempDir dir("target-textures");
    std::ofstream(dir / "kiln.json") << R"({"cook": {"targets": [{"backend": "spirv", "textures": "bc"},
        {"backend": "spirv", "textures": "astc", "texture_quality": "high"}, {"backend": "spirv"}]}})";
    auto settings = project::load_project_settings(dir.path());
    REQUIRE_MESSAGE(settings, (settings ? "" : settings.error().message));
    REQUIRE(settings->targets.size() == 3);
    CHECK(settings->targets[0].id() == "spirv-vulkan1.0-bc");
    CHECK(settings->targets[1].id() == "spirv-vulkan1.0-astc");
    CHECK(settings->targets[1].texture_quality == textures::TextureQuality::kHigh);
    CHECK(settings->targets[2].id() == "spirv-vulkan1.0");
    std::ofstream(dir / "kiln.json") << R"({"cook": {"targets": [{"textures": "etc2", "texture_quality": 3}]}})";
    auto refused = project::load_project_settings(dir.path());
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find(
              "/cook/targets/0/textures: expected \"rgba8\", \"bc\" or \"astc\", got \"etc2\"") != std::string::npos);
    CHECK(refused.error().message.find("/cook/targets/0/texture_quality: expected") != std::string::npos);
  }

  TEST_CASE("the format a texture ships in follows its content - the target - and its own choice") {
    using textures::TextureQuality;
    using textures::TextureShipping;
    const textures::TextureTraits colour{}, cutout{.alpha = true}, mask{.single_channel = true},
        normals{.normal_map = true};
    const auto bc = [](TextureQuality q, const textures::TextureTraits& t, textures::GpuFormatOverride o = {}) {
      return textures::choose_gpu_format(TextureShipping::kBc, q, t, o);
    };
    CHECK(bc(TextureQuality::kMedium, colour) == GpuFormat::kBc1);
    CHECK(bc(TextureQuality::kHigh, colour) == GpuFormat::kBc7);
    CHECK(bc(TextureQuality::kMedium, cutout) == GpuFormat::kBc7);
    CHECK(bc(TextureQuality::kLow, cutout) == GpuFormat::kBc3);
    CHECK(bc(TextureQuality::kHigh, mask) == GpuFormat::kBc4);
    CHECK(bc(TextureQuality::kHigh, normals) == GpuFormat::kBc5);
    CHECK(bc(TextureQuality::kMedium, normals, {.bc = GpuFormat::kBc7}) == GpuFormat::kBc7);
    CHECK(textures::choose_gpu_format(TextureShipping::kAstc, TextureQuality::kLow, colour) == GpuFormat::kAstc8x8);
    CHECK(textures::choose_gpu_format(TextureShipping::kAstc, TextureQuality::kMedium, normals,
                                      {.bc = GpuFormat::kBc7}) == GpuFormat::kAstc6x6);  // another family's choice
    CHECK(textures::choose_gpu_format(TextureShipping::kRgba8, TextureQuality::kHigh, colour,
                                      {.bc = GpuFormat::kBc7, .astc = GpuFormat::kAstc4x4}) == GpuFormat::kRgba8);
  }
}
