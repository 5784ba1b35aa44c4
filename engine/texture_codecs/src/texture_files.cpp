#include "kiln/texture_codecs/texture_files.h"

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/core/atomic_output.h"

namespace kiln::texture_codecs {
namespace {

using textures::GpuFormat;

void put32(std::vector<std::byte>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(std::byte(v >> (8 * i)));
}

std::uint32_t fourcc(const char (&code)[5]) {
  return std::uint32_t(std::uint8_t(code[0])) | std::uint32_t(std::uint8_t(code[1])) << 8 |
         std::uint32_t(std::uint8_t(code[2])) << 16 | std::uint32_t(std::uint8_t(code[3])) << 24;
}

// DXGI_FORMAT values of Direct3D's format list.
std::uint32_t dxgi_format(GpuFormat format, bool srgb) {
  switch (format) {
    case GpuFormat::kBc1: return srgb ? 72 : 71;
    case GpuFormat::kBc3: return srgb ? 78 : 77;
    case GpuFormat::kBc4: return 80;
    case GpuFormat::kBc5: return 83;
    case GpuFormat::kBc7: return srgb ? 99 : 98;
    default: return 0;
  }
}

}  // namespace

Status write_dds(const textures::CompressedTexture& texture, const std::filesystem::path& path) {
  const std::uint32_t dxgi = dxgi_format(texture.format, texture.srgb);
  if (dxgi == 0)
    return make_error(path.string() + ": DDS holds BC formats, not " +
                      std::string(textures::gpu_format_name(texture.format)) + " (write an .astc file instead)");
  // The legacy FourCC codes where they say it all (more readers take them), DX10 for the rest (the
  // ATI1/ATI2 codes of BC4 and BC5 are read with their channels in differing orders).
  std::uint32_t code = fourcc("DX10");
  if (!texture.srgb && texture.format == GpuFormat::kBc1) code = fourcc("DXT1");
  if (!texture.srgb && texture.format == GpuFormat::kBc3) code = fourcc("DXT5");
  const auto& top = texture.levels.at(0);
  std::vector<std::byte> out;
  put32(out, fourcc("DDS "));
  put32(out, 124);                                           // header size
  put32(out, 0x1 | 0x2 | 0x4 | 0x1000 | 0x20000 | 0x80000);  // caps, height, width, pixel format, mips, linear size
  put32(out, top.height);
  put32(out, top.width);
  put32(out, std::uint32_t(top.blocks.size()));  // bytes of level 0
  put32(out, 0);                                 // depth
  put32(out, std::uint32_t(texture.levels.size()));
  for (int i = 0; i < 11; ++i) put32(out, 0);  // reserved
  put32(out, 32);                              // pixel format size
  put32(out, 0x4);                             // DDPF_FOURCC
  put32(out, code);
  for (int i = 0; i < 5; ++i) put32(out, 0);                              // bit count and masks
  put32(out, 0x1000 | (texture.levels.size() > 1 ? 0x8 | 0x400000 : 0));  // texture (+ complex, mipmap)
  for (int i = 0; i < 4; ++i) put32(out, 0);                              // caps 2-4, reserved
  if (code == fourcc("DX10")) {
    put32(out, dxgi);
    put32(out, 3);  // a 2D texture
    put32(out, 0);
    put32(out, 1);                      // array size
    put32(out, texture.alpha ? 2 : 0);  // DDS_ALPHA_MODE_PREMULTIPLIED when it has alpha
  }
  for (const auto& level : texture.levels) out.insert(out.end(), level.blocks.begin(), level.blocks.end());
  return write_file_atomically(path, out);
}

Status write_astc_file(const textures::CompressedTexture& texture, std::size_t level,
                       const std::filesystem::path& path) {
  const auto& info = textures::gpu_format_info(texture.format);
  if (info.family != textures::GpuFormatFamily::kAstc)
    return make_error(path.string() + ": an .astc file holds ASTC, not " + std::string(info.name));
  if (level >= texture.levels.size())
    return make_error(path.string() + ": no level " + std::to_string(level) + " (the texture has " +
                      std::to_string(texture.levels.size()) + ")");
  const auto& l = texture.levels[level];
  std::vector<std::byte> out;
  put32(out, 0x5CA1AB13);
  out.push_back(std::byte(info.block_width));
  out.push_back(std::byte(info.block_height));
  out.push_back(std::byte(1));
  for (std::uint32_t dim : {l.width, l.height, 1u})
    for (int i = 0; i < 3; ++i) out.push_back(std::byte(dim >> (8 * i)));
  out.insert(out.end(), l.blocks.begin(), l.blocks.end());
  return write_file_atomically(path, out);
}

}  // namespace kiln::texture_codecs
