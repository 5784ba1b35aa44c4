#pragma once
// A .tx as a target ships it: every mip level read as RGBA8 and encoded in the block format the
// target and the texture choose (choose_gpu_format), into a compressed texture record. A texture
// that ships as RGBA (an rgba8 target or choice, or an HDR .tx, which ships as half floats) keeps
// its .tx.
//
// Thread-safety: pure functions; with a pool, each level's blocks are encoded on its workers.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/core/worker_pool.h"
#include "kiln/texture_codecs/block_codec.h"
#include "kiln/textures/compressed_texture.h"
#include "kiln/textures/gpu_format.h"
#include "kiln/textures/tx_file.h"

namespace kiln::texture_codecs {

struct ShippingChoice {
  textures::TextureShipping shipping = textures::TextureShipping::kRgba8;
  textures::TextureQuality quality = textures::TextureQuality::kMedium;
  textures::GpuFormatOverride override_format;
  bool operator==(const ShippingChoice&) const = default;
};
// One line naming the choice: part of an encoding's cache key and of messages.
std::string describe_choice(const ShippingChoice& choice);

struct ShippedTx {
  textures::GpuFormat format = textures::GpuFormat::kRgba8;
  std::vector<std::byte> record;  // empty: the .tx ships as it is
};

// `name` names the .tx in errors.
Result<ShippedTx> compress_tx(const std::string& name, std::span<const std::byte> tx, const ShippingChoice& choice,
                              core::WorkerPool* pool = nullptr, const EncodeOptions& tuning = {});

// Level `level` of an open .tx as RGBA8, premultiplied, as the tile cache delivers it.
Result<RgbaLevel> read_tx_level(textures::TxFile& file, std::size_t level);

// Level `level` of a compressed record decoded, its channel mapping applied: what a shader samples.
Result<RgbaLevel> decode_record_level(const textures::CompressedTexture& texture, std::size_t level);

}  // namespace kiln::texture_codecs
