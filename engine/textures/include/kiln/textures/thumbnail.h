#pragma once
// Thumbnails and previews from the mip chain: they read the
// smallest level at least as large as the request, through the tile cache, never the full image;
// a 1-pixel preview of a file with oiio:AverageColor reads nothing at all.
//
// Thread-safety: free functions over a TileCache (any thread).

#include <cstdint>
#include <memory>

#include "kiln/textures/image.h"
#include "kiln/textures/tile_cache.h"

namespace kiln::textures {

// The smallest level whose longer side is at least `size`; level 0 when none is that large.
std::size_t thumbnail_level(const TxInfo& info, std::uint32_t size);

// Level `level` as one RGBA image, assembled from its tiles through the cache.
Result<Image> read_level(TileCache& cache, const std::shared_ptr<TiledImage>& image, std::size_t level);

// Level `level` as straight (un-premultiplied) RGBA8, what an image file holds: read at the file's
// precision and un-premultiplied before rounding, as OpenImageIO writes a PNG. A level larger than
// `budget_bytes` as RGBA8 (the user's texture memory) is refused.
Result<Image> export_level(TxFile& file, std::size_t level, std::uint64_t budget_bytes);
// The same at 16 bits per channel: for a 16-bit or float file, whose precision 8 bits would lose
// (float clamped to 0..1).
Result<Image16> export_level16(TxFile& file, std::size_t level, std::uint64_t budget_bytes);

// An RGBA thumbnail whose longer side is `size` (or the image's, if smaller), aspect kept, box
// filtered from thumbnail_level().
Result<Image> make_thumbnail(TileCache& cache, const std::shared_ptr<TiledImage>& image, std::uint32_t size);

}  // namespace kiln::textures
