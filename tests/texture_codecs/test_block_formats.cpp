// The BC formats libsquish encodes and ASTC: Kiln's decoding against OpenImageIO (DDS) and the
// astcenc tool (.astc), and what each format keeps.
#include <doctest/doctest.h>

#include "child_process.h"
#include "codec_images.h"
#include "kiln/texture_codecs/texture_files.h"
#include "kiln/textures/image.h"
#include "oiio_oracle.h"
#include "temp_dir.h"

namespace kiln::test {
namespace {

using texture_codecs::RgbaLevel;
using textures::GpuFormat;

RgbaLevel decoded(const std::vector<std::byte>& blocks, GpuFormat format, std::uint32_t w, std::uint32_t h,
                  bool srgb = false) {
  auto level = texture_codecs::decode_level(blocks, format, w, h, srgb);
  REQUIRE(level);
  return *level;
}

}  // namespace

TEST_CASE("BC1 BC3 BC4 and BC5 levels read back through OpenImageIO as Kiln decodes them") {
  TempDir dir("bc-formats");
  // 70x38: edge blocks cut by the level's border on both axes.
  const RgbaLevel source = photo_like(70, 38, 5, /*alpha=*/true);
  for (GpuFormat format : {GpuFormat::kBc1, GpuFormat::kBc3, GpuFormat::kBc4, GpuFormat::kBc5}) {
    CAPTURE(textures::gpu_format_name(format));
    auto blocks = texture_codecs::encode_level(source, format, {});
    REQUIRE(blocks);
    CHECK(blocks->size() == textures::gpu_level_bytes(format, 70, 38));
    const RgbaLevel ours = decoded(*blocks, format, 70, 38);
    textures::CompressedTexture texture;
    texture.format = format;
    texture.levels.push_back({70, 38, *blocks});
    REQUIRE(texture_codecs::write_dds(texture, dir / "level.dds"));
    const textures::Image oiio = oiio_read_level(dir / "level.dds", 0);
    REQUIRE(oiio.width == 70);
    // What each format keeps, compared channel by channel (OIIO fills the channels a format lacks
    // its own way).
    const int kept = format == GpuFormat::kBc4 ? 1 : format == GpuFormat::kBc5 ? 2 : format == GpuFormat::kBc1 ? 3 : 4;
    std::size_t differing = 0;
    int worst = 0;  // in 1/255 steps
    for (std::size_t p = 0; p < ours.rgba.size(); p += 4)
      for (int c = 0; c < kept; ++c) {
        // OIIO reads BC5 as two channels, which the oracle spreads as gray and alpha.
        const int theirs = oiio.pixels[p + (kept == 2 && c == 1 ? 3 : c)];
        differing += ours.rgba[p + c] != theirs;
        worst = std::max(worst, std::abs(int(ours.rgba[p + c]) - theirs));
      }
    // Decoders may round the interpolated values differently (by a step for BC4 and BC5, which
    // interpolate 8-bit endpoints; two for BC1 and BC3, whose 5:6:5 endpoints are widened first).
    CHECK(worst <= (kept <= 2 ? 1 : 2));
    CHECK(differing < ours.rgba.size() / 2);
    CHECK(psnr(source, ours, kept) > 30.0);
  }
}

TEST_CASE("ASTC levels decode as the astcenc tool decodes them") {
  TempDir dir("astc");
  const RgbaLevel source = photo_like(45, 30, 9, /*alpha=*/true);
  for (GpuFormat format : {GpuFormat::kAstc4x4, GpuFormat::kAstc6x6, GpuFormat::kAstc8x8}) {
    CAPTURE(textures::gpu_format_name(format));
    core::WorkerPool pool(2);
    auto blocks = texture_codecs::encode_level(source, format, {}, &pool);
    REQUIRE(blocks);
    CHECK(blocks->size() == textures::gpu_level_bytes(format, 45, 30));
    textures::CompressedTexture texture;
    texture.format = format;
    texture.levels.push_back({45, 30, *blocks});
    REQUIRE(texture_codecs::write_astc_file(texture, 0, dir / "level.astc"));
    const auto run =
        run_process({"/usr/bin/astcenc", "-dl", (dir / "level.astc").string(), (dir / "out.png").string()});
    REQUIRE_MESSAGE(run.exit_code == 0, run.output);
    auto oracle = textures::read_image(dir / "out.png");
    REQUIRE(oracle);
    const textures::Image rgba = textures::to_rgba(*oracle);
    const RgbaLevel ours = decoded(*blocks, format, 45, 30);
    CHECK(ours.rgba == rgba.pixels);
    CHECK(psnr(source, ours, 4) > (format == GpuFormat::kAstc8x8 ? 28.0 : 33.0));
  }
}

TEST_CASE("A level of the wrong size is refused before decoding") {
  const std::vector<std::byte> short_level(15);
  auto level = texture_codecs::decode_level(short_level, GpuFormat::kBc7, 4, 4);
  REQUIRE_FALSE(level);
  CHECK(level.error().message.find("bc7 level of 4x4 cannot be 15 bytes") != std::string::npos);
  CHECK_FALSE(texture_codecs::decode_level(std::vector<std::byte>(16), GpuFormat::kAstc6x6, 7, 6));
  CHECK_FALSE(texture_codecs::encode_level({0, 4, {}}, GpuFormat::kBc1, {}));
}

TEST_CASE("DDS refuses ASTC and an .astc file refuses BC") {
  TempDir dir("containers");
  std::vector<std::byte> blocks(16);
  textures::CompressedTexture astc{.format = GpuFormat::kAstc4x4};
  astc.levels.push_back({4, 4, blocks});
  CHECK_FALSE(texture_codecs::write_dds(astc, dir / "x.dds"));
  textures::CompressedTexture bc{.format = GpuFormat::kBc7};
  bc.levels.push_back({4, 4, blocks});
  CHECK_FALSE(texture_codecs::write_astc_file(bc, 0, dir / "x.astc"));
  CHECK_FALSE(std::filesystem::exists(dir / "x.dds"));
}

}  // namespace kiln::test
