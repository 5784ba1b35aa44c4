#include "kiln/textures/compressed_texture.h"

#include <algorithm>
#include <cstring>

namespace kiln::textures {
namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'G', 'T', 'E', 'X'};
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 4 + 4 * 4;  // magic, version, 4 bytes, swizzle, 4 words
constexpr std::size_t kLevelBytes = 4 + 4 + 8 + 8;
constexpr std::uint32_t kMaxLevels = 17;  // 65536 down to 1
constexpr std::uint32_t kMaxSide = 65536;
constexpr std::uint8_t kSrgb = 1, kNormalMap = 2, kAlpha = 4, kNearest = 8;

std::size_t aligned(std::size_t n) { return (n + 15) & ~std::size_t(15); }

void put32(std::vector<std::byte>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(std::byte(v >> (8 * i)));
}
void put64(std::vector<std::byte>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(std::byte(v >> (8 * i)));
}
std::uint32_t get32(const std::byte* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t(p[i]) << (8 * i);
  return v;
}
std::uint64_t get64(const std::byte* p) { return get32(p) | std::uint64_t(get32(p + 4)) << 32; }

std::uint8_t wrap_value(WrapMode mode) { return static_cast<std::uint8_t>(mode); }

}  // namespace

bool is_compressed_texture(std::span<const std::byte> bytes) {
  return bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0;
}

std::vector<std::byte> encode_compressed_texture(const CompressedTexture& texture) {
  std::vector<std::byte> out;
  for (char c : kMagic) out.push_back(std::byte(c));
  put32(out, kCompressedTextureVersion);
  out.push_back(std::byte(static_cast<std::uint8_t>(texture.format)));
  out.push_back(std::byte((texture.srgb ? kSrgb : 0) | (texture.normal_map ? kNormalMap : 0) |
                          (texture.alpha ? kAlpha : 0) | (texture.nearest ? kNearest : 0)));
  out.push_back(std::byte(wrap_value(texture.wrap_s)));
  out.push_back(std::byte(wrap_value(texture.wrap_t)));
  for (Swizzle s : texture.mapping) out.push_back(std::byte(static_cast<std::uint8_t>(s)));
  const std::uint32_t width = texture.levels.empty() ? 0 : texture.levels[0].width;
  const std::uint32_t height = texture.levels.empty() ? 0 : texture.levels[0].height;
  put32(out, width);
  put32(out, height);
  put32(out, std::uint32_t(texture.levels.size()));
  put32(out, 0);
  std::size_t at = aligned(kHeaderBytes + kLevelBytes * texture.levels.size());
  for (const CompressedLevel& level : texture.levels) {
    put32(out, level.width);
    put32(out, level.height);
    put64(out, at);
    put64(out, level.blocks.size());
    at = aligned(at + level.blocks.size());
  }
  for (const CompressedLevel& level : texture.levels) {
    out.resize(aligned(out.size()), std::byte{0});
    out.insert(out.end(), level.blocks.begin(), level.blocks.end());
  }
  out.resize(aligned(out.size()), std::byte{0});
  return out;
}

Result<CompressedTexture> decode_compressed_texture(std::span<const std::byte> bytes, const std::string& where) {
  const auto fail = [&](const std::string& problem) { return make_error(where + ": " + problem); };
  if (!is_compressed_texture(bytes)) return fail("not a compressed texture (no KILNGTEX magic)");
  if (bytes.size() < kHeaderBytes) return fail("truncated header (" + std::to_string(bytes.size()) + " bytes)");
  const std::byte* p = bytes.data();
  if (const std::uint32_t version = get32(p + 8); version != kCompressedTextureVersion)
    return fail("compressed texture version " + std::to_string(version) + ", this build reads " +
                std::to_string(kCompressedTextureVersion) + " (cook again)");
  CompressedTexture texture;
  const auto format = gpu_format_from_value(std::uint8_t(p[12]));
  if (!format || !is_block_compressed(*format))
    return fail("format " + std::to_string(unsigned(p[12])) + " is not a block-compressed format");
  texture.format = *format;
  const auto flags = std::uint8_t(p[13]);
  if (flags & ~(kSrgb | kNormalMap | kAlpha | kNearest)) return fail("unknown flags " + std::to_string(flags));
  texture.srgb = flags & kSrgb;
  texture.normal_map = flags & kNormalMap;
  texture.alpha = flags & kAlpha;
  texture.nearest = flags & kNearest;
  for (int i = 0; i < 2; ++i) {
    const auto v = std::uint8_t(p[14 + i]);
    if (v > wrap_value(WrapMode::Mirror)) return fail("wrap mode " + std::to_string(v) + " is not one");
    (i == 0 ? texture.wrap_s : texture.wrap_t) = static_cast<WrapMode>(v);
  }
  for (int i = 0; i < 4; ++i) {
    const auto v = std::uint8_t(p[16 + i]);
    if (v > static_cast<std::uint8_t>(Swizzle::kOne))
      return fail("channel mapping " + std::to_string(v) + " is not one");
    texture.mapping[i] = static_cast<Swizzle>(v);
  }
  const std::uint32_t width = get32(p + 20), height = get32(p + 24), count = get32(p + 28);
  if (get32(p + 32) != 0) return fail("reserved word is not zero");
  if (width == 0 || height == 0 || width > kMaxSide || height > kMaxSide)
    return fail("size " + std::to_string(width) + "x" + std::to_string(height) + " is out of range");
  if (count == 0 || count > kMaxLevels) return fail(std::to_string(count) + " levels is out of range");
  const std::size_t table_end = kHeaderBytes + kLevelBytes * count;
  if (bytes.size() < table_end) return fail("truncated level table");
  std::uint64_t at = aligned(table_end);
  for (std::uint32_t l = 0; l < count; ++l) {
    const std::byte* e = p + kHeaderBytes + kLevelBytes * l;
    const std::uint32_t w = get32(e), h = get32(e + 4);
    const std::uint64_t offset = get64(e + 8), size = get64(e + 16);
    const std::string level = "level " + std::to_string(l);
    const std::uint32_t want_w = std::max(1u, width >> std::min(l, 31u)),
                        want_h = std::max(1u, height >> std::min(l, 31u));
    if (w != want_w || h != want_h)
      return fail(level + " is " + std::to_string(w) + "x" + std::to_string(h) + ", expected " +
                  std::to_string(want_w) + "x" + std::to_string(want_h));
    if (size != gpu_level_bytes(texture.format, w, h))
      return fail(level + " has " + std::to_string(size) + " bytes, " + std::string(gpu_format_name(texture.format)) +
                  " at " + std::to_string(w) + "x" + std::to_string(h) + " is " +
                  std::to_string(gpu_level_bytes(texture.format, w, h)));
    if (l + 1 < count && w == 1 && h == 1) return fail(level + " is 1x1 but more levels follow");
    if (offset != at) return fail(level + " starts at " + std::to_string(offset) + ", expected " + std::to_string(at));
    if (offset > bytes.size() || size > bytes.size() - offset) return fail(level + " runs past the end of the record");
    texture.levels.push_back({w, h, bytes.subspan(offset, size)});
    at = aligned(offset + size);
  }
  const bool last_is_1x1 = texture.levels.back().width == 1 && texture.levels.back().height == 1;
  if (!last_is_1x1) return fail("the mip chain stops before 1x1");
  if (at != bytes.size())
    return fail("the record is " + std::to_string(bytes.size()) + " bytes, its levels end at " + std::to_string(at));
  // The padding between levels is part of the record: zero, so that one texture makes one record.
  std::uint64_t used = aligned(table_end);
  const auto zero = [&](std::uint64_t from, std::uint64_t to) {
    return std::all_of(p + from, p + to, [](std::byte b) { return b == std::byte{0}; });
  };
  if (!zero(table_end, used)) return fail("the padding after the level table is not zero");
  for (const CompressedLevel& level : texture.levels) {
    const std::uint64_t end = std::uint64_t(level.blocks.data() - p) + level.blocks.size();
    if (!zero(end, aligned(end))) return fail("the padding after a level is not zero");
  }
  return texture;
}

std::uint64_t ShippedTexture::gpu_bytes() const {
  std::uint64_t total = 0;
  for (const ShippedLevel& l : levels) total += l.bytes;
  return total;
}

Result<ShippedTexture> describe_shipped_texture(std::span<const std::byte> bytes, const std::string& where) {
  ShippedTexture out;
  if (is_compressed_texture(bytes)) {
    auto texture = decode_compressed_texture(bytes, where);
    if (!texture) return texture.error();
    out.format = texture->format;
    out.srgb = texture->srgb;
    out.normal_map = texture->normal_map;
    out.alpha = texture->alpha;
    for (const CompressedLevel& l : texture->levels) out.levels.push_back({l.width, l.height, l.blocks.size()});
    return out;
  }
  auto tx = TxFile::open_memory(where, bytes);
  if (!tx) return tx.error();
  const TxInfo& info = (*tx)->info();
  out.tx = true;
  out.format = info.is_float ? GpuFormat::kRgba16f : GpuFormat::kRgba8;
  out.srgb = info.color_space == "sRGB";
  out.normal_map = info.normal_map;
  out.alpha = info.alpha != TxAlpha::kNone;
  for (const TxLevel& l : info.levels)
    out.levels.push_back({l.width, l.height, gpu_level_bytes(out.format, l.width, l.height)});
  return out;
}

std::string_view swizzle_name(Swizzle swizzle) {
  static constexpr std::string_view kNames[] = {"r", "g", "b", "a", "0", "1"};
  return kNames[static_cast<std::size_t>(swizzle)];
}

}  // namespace kiln::textures
