// The block-compressed texture record a textures pack ships, as a hand-made pack with valid
// checksums would hold it: decoded, and what it says checked against its own bytes.
#include "fuzz_target.h"
#include "kiln/textures/compressed_texture.h"

KILN_FUZZ_TARGET(compressed_texture) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data.data()), data.size());
  auto texture = kiln::textures::decode_compressed_texture(bytes, "texture:fuzz");
  if (!texture) {
    KILN_FUZZ_CHECK_ERROR(texture.error(), "texture:fuzz");
    return;
  }
  // Every level a view inside the record, of exactly its format's size.
  for (const auto& level : texture->levels) {
    if (level.blocks.data() < bytes.data() || level.blocks.data() + level.blocks.size() > bytes.data() + bytes.size() ||
        level.blocks.size() != kiln::textures::gpu_level_bytes(texture->format, level.width, level.height))
      __builtin_trap();
  }
  // Encoding it again gives the same bytes: one texture, one record.
  if (kiln::textures::encode_compressed_texture(*texture) != std::vector<std::byte>(bytes.begin(), bytes.end()))
    __builtin_trap();
}
