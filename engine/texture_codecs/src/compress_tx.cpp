#include "kiln/texture_codecs/compress_tx.h"

#include <algorithm>
#include <cstring>

namespace kiln::texture_codecs {

using textures::GpuFormat;

std::string describe_choice(const ShippingChoice& choice) {
  std::string text = "textures " + std::string(textures::texture_shipping_name(choice.shipping)) + ", quality " +
                     std::string(textures::texture_quality_name(choice.quality));
  if (choice.override_format.bc) text += ", bc " + std::string(textures::gpu_format_name(*choice.override_format.bc));
  if (choice.override_format.astc)
    text += ", astc " + std::string(textures::gpu_format_name(*choice.override_format.astc));
  return text;
}

Result<RgbaLevel> read_tx_level(textures::TxFile& file, std::size_t level) {
  auto rgba = file.read_level_rgba8(level);
  if (!rgba) return rgba.error();
  const textures::TxLevel& tl = file.info().levels[level];
  return RgbaLevel{tl.width, tl.height, std::move(*rgba)};
}

Result<ShippedTx> compress_tx(const std::string& name, std::span<const std::byte> tx, const ShippingChoice& choice,
                              core::WorkerPool* pool, const EncodeOptions& tuning) {
  auto file = textures::TxFile::open_memory(name, tx);
  if (!file) return file.error();
  const textures::TxInfo& info = (*file)->info();
  if (info.is_float) return ShippedTx{GpuFormat::kRgba16f, {}};  // HDR ships as half floats
  if (choice.shipping == textures::TextureShipping::kRgba8) return ShippedTx{GpuFormat::kRgba8, {}};

  auto top = read_tx_level(**file, 0);
  if (!top) return top.error();
  textures::TextureTraits traits;
  traits.normal_map = info.normal_map;
  traits.single_channel = info.channels == 1;
  if (info.alpha != textures::TxAlpha::kNone)
    for (std::size_t p = 3; p < top->rgba.size() && !traits.alpha; p += 4) traits.alpha = top->rgba[p] != 255;
  const GpuFormat format = textures::choose_gpu_format(choice.shipping, choice.quality, traits, choice.override_format);
  if (!textures::is_block_compressed(format)) return ShippedTx{format, {}};
  const bool astc = textures::gpu_format_info(format).family == textures::GpuFormatFamily::kAstc;

  textures::CompressedTexture texture;
  texture.format = format;
  texture.srgb = info.color_space == "sRGB" && !info.normal_map;
  texture.normal_map = info.normal_map;
  texture.alpha = traits.alpha;
  texture.nearest = info.nearest;
  texture.wrap_s = info.wrap_s;
  texture.wrap_t = info.wrap_t;
  using S = textures::Swizzle;
  if (format == GpuFormat::kBc4) texture.mapping = {S::kR, S::kR, S::kR, S::kOne};
  if (format == GpuFormat::kBc5) texture.mapping = {S::kR, S::kG, S::kZero, S::kOne};
  if (astc && info.normal_map) texture.mapping = {S::kR, S::kA, S::kZero, S::kOne};
  if (format == GpuFormat::kBc1 ||
      (!traits.alpha && format != GpuFormat::kBc4 && format != GpuFormat::kBc5 && !(astc && info.normal_map)))
    texture.mapping[3] = S::kOne;  // opaque: what the texture says, whatever the block's alpha rounds to
  EncodeOptions options = tuning;
  options.srgb = texture.srgb;
  options.normal_map = info.normal_map;
  options.opaque = !traits.alpha;

  std::vector<std::vector<std::byte>> blocks;
  for (std::size_t l = 0; l < info.levels.size(); ++l) {
    Result<RgbaLevel> level = l == 0 ? std::move(top) : read_tx_level(**file, l);
    if (!level) return level.error();
    auto encoded = encode_level(*level, format, options, pool);
    if (!encoded)
      return make_error(name + ": level " + std::to_string(l) + " as " +
                        std::string(textures::gpu_format_name(format)) + ": " + encoded.error().message);
    blocks.push_back(std::move(*encoded));
    texture.levels.push_back({level->width, level->height, {}});
  }
  for (std::size_t l = 0; l < blocks.size(); ++l) texture.levels[l].blocks = blocks[l];
  return ShippedTx{format, textures::encode_compressed_texture(texture)};
}

Result<RgbaLevel> decode_record_level(const textures::CompressedTexture& texture, std::size_t level) {
  if (level >= texture.levels.size())
    return make_error("level " + std::to_string(level) + " of " + std::to_string(texture.levels.size()));
  const textures::CompressedLevel& l = texture.levels[level];
  auto decoded = decode_level(l.blocks, texture.format, l.width, l.height, texture.srgb);
  if (!decoded) return decoded.error();
  apply_mapping(*decoded, texture.mapping);
  return decoded;
}

}  // namespace kiln::texture_codecs
