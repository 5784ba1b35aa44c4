// .tx files (tiled TIFF mip chains) from memory: the level checks, then a few tiles of each level.
#include "fuzz_target.h"
#include "kiln/textures/tx_file.h"

KILN_FUZZ_TARGET(tx) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data.data()), data.size());
  auto tx = kiln::textures::TxFile::open_memory("fuzz.tx", bytes);
  if (!tx) {
    KILN_FUZZ_CHECK_ERROR(tx.error(), "fuzz.tx");
    return;
  }
  const auto& levels = (*tx)->info().levels;
  KILN_FUZZ_CHECK(!levels.empty());
  for (std::size_t l = 0; l < levels.size(); ++l) {
    auto tile = (*tx)->read_tile_rgba8(l, 0, 0);
    if (!tile)
      KILN_FUZZ_CHECK_ERROR(tile.error(), "fuzz.tx");
    else
      KILN_FUZZ_CHECK(tile->size() == std::size_t(levels[l].tile_width) * levels[l].tile_height * 4);
  }
}
