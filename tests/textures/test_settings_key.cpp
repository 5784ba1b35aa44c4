// A texture's settings reach the keys of its conversions (the cook's converted .tx, the tile
// cache's converted images) through describe_settings: every field that changes the .tx changes it.

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "kiln/textures/texture_settings.h"

using namespace kiln::textures;

TEST_SUITE("textures") {
  TEST_CASE("each texture setting that changes the .tx changes the description its conversions are keyed by") {
    const TextureSettings base;
    std::vector<TextureSettings> variants;
    auto with = [&](auto edit) {
      TextureSettings s = base;
      edit(s);
      variants.push_back(s);
    };
    with([](TextureSettings&) {});
    with([](TextureSettings& s) { s.color_space = ColorSpace::kLinear; });
    with([](TextureSettings& s) { s.source_color_space = true; });
    with([](TextureSettings& s) { s.normal_map = true; });
    with([](TextureSettings& s) { s.wrap_s = WrapMode::Clamp; });
    with([](TextureSettings& s) { s.wrap_t = WrapMode::Clamp; });
    with([](TextureSettings& s) { s.wrap_s = s.wrap_t = WrapMode::Mirror; });
    with([](TextureSettings& s) { s.wrap_s = s.wrap_t = WrapMode::Black; });
    with([](TextureSettings& s) { s.filter = TextureFilter::kNearest; });
    with([](TextureSettings& s) { s.compression = TileCompression::kZstd; });
    with([](TextureSettings& s) { s.compression = TileCompression::kNone; });
    with([](TextureSettings& s) { s.max_size = 256; });
    std::set<std::string> descriptions;
    for (const TextureSettings& s : variants) descriptions.insert(describe_settings(s));
    CHECK(descriptions.size() == variants.size());
    CHECK(describe_settings(base) == describe_settings(TextureSettings{}));
  }
}
