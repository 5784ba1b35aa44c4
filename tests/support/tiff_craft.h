#pragma once
// Hand-made tiled TIFFs for limit tests: sizes no real tool would write, cheaply. Every tile of
// every level points at one shared zlib payload, so a 100000x100000 mip chain is a few kilobytes.

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace kiln::test {

struct CraftedLevel {
  std::uint32_t width, height, tile_width, tile_height;
};

// The full mip chain of a width x height image down to 1x1, every level with the same tile size.
inline std::vector<CraftedLevel> crafted_chain(std::uint32_t width, std::uint32_t height, std::uint32_t tile_w,
                                               std::uint32_t tile_h) {
  std::vector<CraftedLevel> levels;
  for (;;) {
    levels.push_back({width, height, tile_w, tile_h});
    if (width == 1 && height == 1) return levels;
    width = std::max(1u, width / 2), height = std::max(1u, height / 2);
  }
}

// One-channel 8-bit deflate-compressed tiles of value 0x80 (tiles over 16 MiB: an unreadable stand-in).
inline void write_crafted_tiff(const std::filesystem::path& path, const std::vector<CraftedLevel>& levels) {
  std::string out("II*\0\0\0\0\0", 8);
  auto put16 = [&](std::uint16_t v) { out.append(reinterpret_cast<const char*>(&v), 2); };
  auto put32 = [&](std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  auto align = [&] {
    if (out.size() % 2) out.push_back('\0');
  };
  std::vector<std::uint32_t> ifds, next_links;
  for (std::size_t li = 0; li < levels.size(); ++li) {
    const CraftedLevel& l = levels[li];
    // Tiles beyond any sane size get a stand-in payload: readers must refuse them before reading.
    const std::size_t tile_bytes = std::size_t(l.tile_width) * l.tile_height;
    const std::vector<unsigned char> raw(tile_bytes <= (std::size_t{16} << 20) ? tile_bytes : 16, 0x80);
    uLongf packed_size = compressBound(uLong(raw.size()));
    std::vector<unsigned char> packed(packed_size);
    compress(packed.data(), &packed_size, raw.data(), uLong(raw.size()));
    const std::uint32_t payload_at = std::uint32_t(out.size());
    out.append(reinterpret_cast<const char*>(packed.data()), packed_size);
    align();
    const std::uint64_t tiles =
        std::uint64_t((l.width + l.tile_width - 1) / l.tile_width) * ((l.height + l.tile_height - 1) / l.tile_height);
    const std::uint32_t offsets_at = std::uint32_t(out.size());
    for (std::uint64_t t = 0; t < tiles; ++t) put32(payload_at);
    const std::uint32_t counts_at = std::uint32_t(out.size());
    for (std::uint64_t t = 0; t < tiles; ++t) put32(std::uint32_t(packed_size));
    align();
    ifds.push_back(std::uint32_t(out.size()));
    struct Entry {
      std::uint16_t tag, type;
      std::uint32_t count, value;
    };
    const Entry entries[] = {{254, 4, 1, li ? 1u : 0u},
                             {256, 4, 1, l.width},
                             {257, 4, 1, l.height},
                             {258, 3, 1, 8},
                             {259, 3, 1, 8},
                             {262, 3, 1, 1},
                             {277, 3, 1, 1},
                             {284, 3, 1, 1},
                             {322, 4, 1, l.tile_width},
                             {323, 4, 1, l.tile_height},
                             {324, 4, std::uint32_t(tiles), tiles > 1 ? offsets_at : payload_at},
                             {325, 4, std::uint32_t(tiles), tiles > 1 ? counts_at : std::uint32_t(packed_size)}};
    put16(std::uint16_t(std::size(entries)));
    for (const Entry& e : entries) {
      put16(e.tag), put16(e.type), put32(e.count);
      if (e.type == 3)
        put16(std::uint16_t(e.value)), put16(0);
      else
        put32(e.value);
    }
    next_links.push_back(std::uint32_t(out.size()));
    put32(0);
  }
  std::memcpy(out.data() + 4, &ifds[0], 4);
  for (std::size_t i = 0; i + 1 < ifds.size(); ++i) std::memcpy(out.data() + next_links[i], &ifds[i + 1], 4);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << out;
}

}  // namespace kiln::test
