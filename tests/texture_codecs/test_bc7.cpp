// BC7: Kiln's decoder against OpenImageIO's on blocks of every mode, and Kiln's encoder against
// BC3 (libsquish) on photograph-like images.
#include <doctest/doctest.h>

#include <random>

#include "codec_images.h"
#include "kiln/texture_codecs/bc7.h"
#include "kiln/texture_codecs/texture_files.h"
#include "oiio_oracle.h"
#include "temp_dir.h"

namespace kiln::test {
namespace {

using texture_codecs::RgbaLevel;
using textures::GpuFormat;

RgbaLevel decode(const std::vector<std::byte>& blocks, GpuFormat format, std::uint32_t w, std::uint32_t h) {
  auto level = texture_codecs::decode_level(blocks, format, w, h);
  REQUIRE(level);
  return *level;
}

// One level as a DDS file, read back by OpenImageIO.
RgbaLevel through_oiio(const TempDir& dir, const std::vector<std::byte>& blocks, GpuFormat format, std::uint32_t w,
                       std::uint32_t h) {
  textures::CompressedTexture texture;
  texture.format = format;
  texture.levels.push_back({w, h, blocks});
  const auto path = dir / "level.dds";
  REQUIRE(texture_codecs::write_dds(texture, path));
  const textures::Image image = oiio_read_level(path, 0);
  REQUIRE(image.width == w);
  REQUIRE(image.height == h);
  return RgbaLevel{w, h, image.pixels};
}

}  // namespace

TEST_CASE("BC7 blocks of all eight modes decode as OpenImageIO decodes them") {
  TempDir dir("bc7-modes");
  // 32 random blocks of each mode: every field and table entry the mode has, at random.
  constexpr std::uint32_t kWidth = 64, kHeight = 64;
  std::vector<std::byte> blocks(std::size_t(kWidth / 4) * (kHeight / 4) * 16);
  std::mt19937 rng(7);
  for (std::size_t b = 0; b < blocks.size() / 16; ++b) {
    const int mode = int(b % 8);
    for (int i = 0; i < 16; ++i) blocks[b * 16 + i] = std::byte(rng());
    auto first = std::uint8_t(blocks[b * 16]);
    first = std::uint8_t((first << (mode + 1)) | (1u << mode));
    blocks[b * 16] = std::byte(first);
  }
  for (std::size_t b = 0; b < 16; ++b)
    CHECK(texture_codecs::bc7_block_mode(reinterpret_cast<const std::uint8_t*>(&blocks[b * 16])) == int(b % 8));
  const RgbaLevel ours = decode(blocks, GpuFormat::kBc7, kWidth, kHeight);
  const RgbaLevel oiio = through_oiio(dir, blocks, GpuFormat::kBc7, kWidth, kHeight);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < ours.rgba.size(); ++i) differing += ours.rgba[i] != oiio.rgba[i];
  CHECK(differing == 0);
}

TEST_CASE("Kiln's BC7 blocks read back through OpenImageIO as Kiln decodes them") {
  TempDir dir("bc7-encode");
  for (bool alpha : {false, true}) {
    CAPTURE(alpha);
    const RgbaLevel source = photo_like(96, 64, alpha ? 3 : 2, alpha);
    auto blocks = texture_codecs::encode_level(source, GpuFormat::kBc7, {});
    REQUIRE(blocks);
    const RgbaLevel ours = decode(*blocks, GpuFormat::kBc7, 96, 64);
    const RgbaLevel oiio = through_oiio(dir, *blocks, GpuFormat::kBc7, 96, 64);
    CHECK(ours.rgba == oiio.rgba);
    CHECK(psnr(source, ours, 4) > 38.0);
  }
}

TEST_CASE("Kiln's BC7 is at least 3 dB better than BC3 on photograph-like images") {
  for (std::uint32_t seed : {11u, 12u, 13u}) {
    CAPTURE(seed);
    const RgbaLevel source = photo_like(128, 128, seed);
    auto bc7 = texture_codecs::encode_level(source, GpuFormat::kBc7, {});
    auto bc3 = texture_codecs::encode_level(source, GpuFormat::kBc3, {});
    REQUIRE(bc7);
    REQUIRE(bc3);
    const double bc7_psnr = psnr(source, decode(*bc7, GpuFormat::kBc7, 128, 128));
    const double bc3_psnr = psnr(source, decode(*bc3, GpuFormat::kBc3, 128, 128));
    MESSAGE("BC7 " << bc7_psnr << " dB, BC3 " << bc3_psnr << " dB");
    CHECK(bc7_psnr >= bc3_psnr + 3.0);
  }
}

TEST_CASE("BC7 keeps a constant block within a step and alpha where it varies") {
  std::uint8_t texels[64], block[16], back[64];
  for (int i = 0; i < 16; ++i)
    texels[4 * i] = 200, texels[4 * i + 1] = 17, texels[4 * i + 2] = 99, texels[4 * i + 3] = 255;
  texture_codecs::encode_bc7_block(texels, block);
  texture_codecs::decode_bc7_block(block, back);
  for (int i = 0; i < 64; ++i) CHECK(std::abs(int(back[i]) - int(texels[i])) <= 1);
  // Alpha ramp with flat colour: mode 5's separate alpha keeps it to within a step or two.
  for (int i = 0; i < 16; ++i) texels[4 * i + 3] = std::uint8_t(i * 17);
  texture_codecs::encode_bc7_block(texels, block);
  texture_codecs::decode_bc7_block(block, back);
  int worst = 0;
  for (int i = 0; i < 64; ++i) worst = std::max(worst, std::abs(int(back[i]) - int(texels[i])));
  CHECK(worst <= 6);
}

TEST_CASE("A BC7 block of no mode decodes to transparent black") {
  std::uint8_t block[16] = {}, back[64];
  for (int i = 1; i < 16; ++i) block[i] = 0xff;
  std::fill(back, back + 64, std::uint8_t(7));
  texture_codecs::decode_bc7_block(block, back);
  CHECK(std::all_of(back, back + 64, [](std::uint8_t v) { return v == 0; }));
  CHECK(texture_codecs::bc7_block_mode(block) == -1);
}

}  // namespace kiln::test
