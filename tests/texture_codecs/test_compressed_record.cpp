// The compressed texture record a textures pack ships: built from a real .tx, read back whole, and
// every malformed field refused naming it.
#include <doctest/doctest.h>

#include <cstring>

#include "codec_images.h"
#include "kiln/core/input_limits.h"
#include "kiln/texture_codecs/compress_tx.h"
#include "kiln/textures/tx_writer.h"
#include "temp_dir.h"

namespace kiln::test {
namespace {

using textures::GpuFormat;

std::vector<std::byte> tx_bytes(const TempDir& dir, const textures::Image& image, const textures::TextureSettings& s) {
  const auto path = dir / "t.tx";
  REQUIRE(textures::write_tx(image, path, {.tile_size = 16, .settings = s}));
  auto text = read_input_file(path, 1 << 26, "test");
  REQUIRE(text);
  const auto* p = reinterpret_cast<const std::byte*>(text->data());
  return {p, p + text->size()};
}

textures::Image image_of(const texture_codecs::RgbaLevel& level, int channels) {
  textures::Image image{level.width, level.height, channels, {}};
  for (std::size_t p = 0; p < level.rgba.size(); p += 4)
    for (int c = 0; c < channels; ++c) image.pixels.push_back(level.rgba[p + (channels == 1 ? 1 : c)]);
  return image;
}

std::vector<std::byte> record_of(const TempDir& dir, const textures::Image& image, textures::TextureSettings s,
                                 texture_codecs::ShippingChoice choice, GpuFormat expected) {
  const auto tx = tx_bytes(dir, image, s);
  choice.override_format = s.gpu_format;
  auto shipped = texture_codecs::compress_tx("t.tx", tx, choice);
  REQUIRE(shipped);
  CHECK(textures::gpu_format_name(shipped->format) == textures::gpu_format_name(expected));
  return shipped->record;
}

}  // namespace

TEST_CASE("A .tx becomes a record of every mip level in the format its target and content choose") {
  TempDir dir("record");
  const auto photo = photo_like(40, 24, 1);
  const texture_codecs::ShippingChoice bc{textures::TextureShipping::kBc};
  textures::TextureSettings colour;
  const auto record = record_of(dir, image_of(photo, 3), colour, bc, GpuFormat::kBc1);
  auto texture = textures::decode_compressed_texture(record, "t");
  REQUIRE(texture);
  CHECK(texture->srgb);
  CHECK_FALSE(texture->alpha);
  REQUIRE(texture->levels.size() == 6);  // 40x24 down to 1x1
  CHECK(texture->levels[0].width == 40);
  CHECK(texture->levels[5].width == 1);
  CHECK(texture->levels[5].height == 1);
  for (const auto& level : texture->levels)
    CHECK(level.blocks.size() == textures::gpu_level_bytes(GpuFormat::kBc1, level.width, level.height));
  auto top = texture_codecs::decode_record_level(*texture, 0);
  REQUIRE(top);
  CHECK(psnr(photo, *top) > 30.0);

  // With alpha: BC7 at medium quality, BC3 at low; gray: BC4 read as gray; normal map: BC5, z to rebuild.
  const auto cutout = photo_like(40, 24, 2, /*alpha=*/true);
  auto straight = image_of(cutout, 4);
  for (std::size_t p = 0; p < straight.pixels.size(); p += 4)  // the writer premultiplies
    for (int c = 0; c < 3; ++c)
      straight.pixels[p + c] =
          straight.pixels[p + 3] ? std::uint8_t(std::min(255u, straight.pixels[p + c] * 255u / straight.pixels[p + 3]))
                                 : 0;
  record_of(dir, straight, colour, bc, GpuFormat::kBc7);
  record_of(dir, straight, colour, {textures::TextureShipping::kBc, textures::TextureQuality::kLow}, GpuFormat::kBc3);
  const auto gray = record_of(dir, image_of(photo, 1), colour, bc, GpuFormat::kBc4);
  auto gray_texture = textures::decode_compressed_texture(gray, "gray");
  REQUIRE(gray_texture);
  auto gray_top = texture_codecs::decode_record_level(*gray_texture, 0);
  REQUIRE(gray_top);
  CHECK(gray_top->rgba[0] == gray_top->rgba[2]);
  CHECK(gray_top->rgba[3] == 255);
  textures::TextureSettings normal;
  normal.normal_map = true;
  normal.color_space = textures::ColorSpace::kLinear;
  const auto normals = record_of(dir, image_of(photo, 3), normal, bc, GpuFormat::kBc5);
  auto normal_texture = textures::decode_compressed_texture(normals, "n");
  REQUIRE(normal_texture);
  CHECK(normal_texture->normal_map);
  CHECK_FALSE(normal_texture->srgb);
  CHECK(normal_texture->mapping[2] == textures::Swizzle::kZero);
  // A texture's own choice wins in its family; rgba8 keeps the .tx; ASTC by quality.
  textures::TextureSettings chosen;
  chosen.gpu_format.bc = GpuFormat::kBc7;
  record_of(dir, image_of(photo, 3), chosen, bc, GpuFormat::kBc7);
  chosen.gpu_format.bc = GpuFormat::kRgba8;
  CHECK(record_of(dir, image_of(photo, 3), chosen, bc, GpuFormat::kRgba8).empty());
  record_of(dir, image_of(photo, 3), colour, {textures::TextureShipping::kAstc, textures::TextureQuality::kHigh},
            GpuFormat::kAstc4x4);
  CHECK(record_of(dir, image_of(photo, 3), colour, {}, GpuFormat::kRgba8).empty());
}

TEST_CASE("A compressed texture record whose chain stops early or runs on is refused") {
  TempDir dir("record-chain");
  const auto good =
      record_of(dir, image_of(photo_like(8, 8, 1), 3), {}, {textures::TextureShipping::kBc}, GpuFormat::kBc1);
  auto texture = textures::decode_compressed_texture(good, "t");
  REQUIRE(texture);
  auto short_chain = *texture;
  short_chain.levels.pop_back();
  auto decoded = textures::decode_compressed_texture(textures::encode_compressed_texture(short_chain), "t");
  REQUIRE_FALSE(decoded);
  CHECK(decoded.error().message == "t: the mip chain stops before 1x1");
  auto long_chain = *texture;
  long_chain.levels.push_back(long_chain.levels.back());
  decoded = textures::decode_compressed_texture(textures::encode_compressed_texture(long_chain), "t");
  REQUIRE_FALSE(decoded);
  CHECK(decoded.error().message == "t: level 3 is 1x1 but more levels follow");
}

TEST_CASE("A malformed compressed texture record is refused naming the field") {
  TempDir dir("record-guards");
  const auto good =
      record_of(dir, image_of(photo_like(8, 8, 1), 3), {}, {textures::TextureShipping::kBc}, GpuFormat::kBc1);
  REQUIRE(textures::decode_compressed_texture(good, "t"));
  const auto refused = [&](auto change, const std::string& expected) {
    auto bytes = good;
    change(bytes);
    auto decoded = textures::decode_compressed_texture(bytes, "textures.pack: texture:t.png");
    REQUIRE_FALSE(decoded);
    CHECK_MESSAGE(decoded.error().message.find(expected) != std::string::npos, decoded.error().message);
    CHECK(decoded.error().message.rfind("textures.pack: texture:t.png: ", 0) == 0);
  };
  const auto put32 = [](std::vector<std::byte>& b, std::size_t at, std::uint32_t v) { std::memcpy(&b[at], &v, 4); };
  refused([](auto& b) { b[0] = std::byte{'X'}; }, "no KILNGTEX magic");
  refused([&](auto& b) { put32(b, 8, 2); }, "version 2");
  refused([](auto& b) { b[12] = std::byte{1}; }, "not a block-compressed format");
  refused([](auto& b) { b[13] = std::byte{0x80}; }, "unknown flags");
  refused([](auto& b) { b[14] = std::byte{9}; }, "wrap mode 9");
  refused([](auto& b) { b[16] = std::byte{6}; }, "channel mapping 6");
  refused([&](auto& b) { put32(b, 20, 9); }, "level 0 is 8x8, expected 9x8");
  refused([&](auto& b) { put32(b, 28, 3); }, "level 0 starts at 144, expected 112");
  refused([&](auto& b) { put32(b, 28, 40); }, "40 levels is out of range");
  refused([&](auto& b) { put32(b, 32, 1); }, "reserved word");
  refused([&](auto& b) { put32(b, 36 + 24 + 16, 31); }, "level 1 has 31 bytes");
  refused([&](auto& b) { put32(b, 36 + 24 + 8, 200); }, "level 1 starts at 200");
  refused([](auto& b) { b.resize(b.size() - 16); }, "runs past the end");
  refused([](auto& b) { b.resize(b.size() + 16); }, "its levels end at");
  refused([](auto& b) { b.resize(20); }, "truncated header");
  refused([](auto& b) { b[36 + 24 * 4] = std::byte{1}; }, "padding after the level table");
  refused([](auto& b) { b[b.size() - 1] = std::byte{1}; }, "padding after a level");
}

}  // namespace kiln::test

namespace kiln::test {

TEST_CASE("The compressed texture fuzz seeds are records that decode") {
  // Seeds that decode let the fuzzer start past the header checks.
  int seeds = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(KILN_FUZZ_DIR) / "corpus" / "compressed_texture")) {
    auto text = read_input_file(entry.path(), 1 << 20, "seed");
    REQUIRE(text);
    auto decoded = textures::decode_compressed_texture(std::as_bytes(std::span(*text)), entry.path().string());
    CHECK_MESSAGE(decoded, (decoded ? "" : decoded.error().message));
    ++seeds;
  }
  CHECK(seeds >= 3);
}

}  // namespace kiln::test
