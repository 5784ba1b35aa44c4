#include "kiln/core/input_limits.h"
#include "kiln/textures/tx_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <span>
#include <optional>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <tuple>

#include "kiln/cache/hash.h"
#include "tiff_errors.h"
#include "tiff_library.h"

namespace kiln::textures {
namespace {

std::optional<std::array<float, 4>> parse_color(const std::string& description, const std::string& key) {
  const auto at = description.find(key + "=");
  if (at == std::string::npos) return std::nullopt;
  std::istringstream in(description.substr(at + key.size() + 1));
  std::array<float, 4> c{0, 0, 0, 1};
  int n = 0;
  for (std::string part; n < 4 && std::getline(in, part, ',');) {
    const auto space = part.find(' ');
    const bool last = space != std::string::npos;
    c[n++] = std::strtof(part.substr(0, space).c_str(), nullptr);
    if (last) break;
  }
  if (n == 1) c[1] = c[2] = c[0];  // gray
  return c;
}

// maketx writes "s,t" (OIIO 2.4 repeats the pair: "periodic,mirror,periodic,mirror"); the first two count.
Result<std::pair<WrapMode, WrapMode>> parse_wrap_modes(const std::string& text) {
  std::istringstream in(text);
  std::string s, t;
  std::getline(in, s, ',');
  if (!std::getline(in, t, ',')) t = s;
  const auto ws = parse_wrap_mode(s), wt = parse_wrap_mode(t);
  if (!ws || !wt) return make_error("unknown wrap modes \"" + text + "\"");
  return std::make_pair(*ws, *wt);
}

// What ExtraSamples says the last channel of a gray + alpha or RGBA file is; without the tag it is
// associated alpha, as OpenImageIO assumes.
TxAlpha alpha_of(TIFF* tif, int channels) {
  if (channels != 2 && channels != 4) return TxAlpha::kNone;
  std::uint16_t count = 0;
  std::uint16_t* kinds = nullptr;
  if (!tiff().get_field(tif, TIFFTAG_EXTRASAMPLES, &count, &kinds) || count == 0 || !kinds) return TxAlpha::kAssociated;
  switch (kinds[count - 1]) {
    case EXTRASAMPLE_ASSOCALPHA: return TxAlpha::kAssociated;
    case EXTRASAMPLE_UNASSALPHA: return TxAlpha::kUnassociated;
    default: return TxAlpha::kNone;
  }
}

std::string compression_of(TIFF* tif) {
  std::uint16_t code = COMPRESSION_NONE;
  tiff().get_field_defaulted(tif, TIFFTAG_COMPRESSION, &code);
  switch (code) {
    case COMPRESSION_NONE: return "none";
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: return "zip";
    case COMPRESSION_ZSTD: return "zstd";
    case COMPRESSION_LZW: return "lzw";
    case COMPRESSION_PACKBITS: return "packbits";
    case COMPRESSION_LZMA: return "lzma";
    case COMPRESSION_WEBP: return "webp";
    case COMPRESSION_JPEG: return "jpeg";
    default: return "code " + std::to_string(code);
  }
}

// The offsets of the current directory's tiles when every tile is raw and holds exactly one tile of
// samples in the machine's order; empty when any tile needs libtiff.
std::vector<std::uint64_t> raw_tile_offsets(TIFF* tif, const TxLevel& level, std::uint64_t tile_bytes,
                                            int bits_per_sample) {
  std::uint16_t compression = COMPRESSION_NONE;
  tiff().get_field_defaulted(tif, TIFFTAG_COMPRESSION, &compression);
  if (compression != COMPRESSION_NONE || (bits_per_sample > 8 && tiff().is_byte_swapped(tif))) return {};
  std::uint64_t *offsets = nullptr, *counts = nullptr;
  if (!tiff().get_field(tif, TIFFTAG_TILEOFFSETS, &offsets) ||
      !tiff().get_field(tif, TIFFTAG_TILEBYTECOUNTS, &counts) || !offsets || !counts)
    return {};
  const std::uint32_t tiles = tiff().number_of_tiles(tif);
  if (std::uint64_t(tiles) < std::uint64_t(level.tiles_x()) * level.tiles_y()) return {};  // a crafted depth
  for (std::uint32_t t = 0; t < tiles; ++t)
    if (counts[t] != tile_bytes) return {};
  return std::vector<std::uint64_t>(offsets, offsets + tiles);
}

std::uint8_t to_u8(float v) {
  if (!(v > 0)) return 0;  // also NaN
  if (v >= 1) return 255;
  return static_cast<std::uint8_t>(v * 255.0f + 0.5f);
}

}  // namespace

std::uint16_t float_to_half(float value) {
  std::uint32_t f;
  std::memcpy(&f, &value, 4);
  const std::uint32_t sign = (f >> 16) & 0x8000;
  const std::uint32_t magnitude = f & 0x7fffffff;
  if (magnitude > 0x7f800000) return std::uint16_t(sign | 0x7e00);   // NaN
  if (magnitude >= 0x477ff000) return std::uint16_t(sign | 0x7c00);  // rounds past 65504: infinity
  if (magnitude < 0x38800000) {                                      // below the smallest normal half
    const std::uint32_t shift = 126 - (magnitude >> 23);
    if (shift > 24) return std::uint16_t(sign);
    const std::uint32_t mantissa = (magnitude & 0x7fffff) | 0x800000;
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1), middle = 1u << (shift - 1);
    if (rest > middle || (rest == middle && (half & 1))) ++half;
    return std::uint16_t(sign | half);
  }
  std::uint32_t half = ((magnitude - 0x38000000) >> 13);
  const std::uint32_t rest = magnitude & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return std::uint16_t(sign | half);
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(float(mantissa), -24);  // zero and subnormals
  else if (exponent == 31)
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    magnitude = std::ldexp(float(mantissa | 0x400u), int(exponent) - 25);
  std::uint32_t bits;
  std::memcpy(&bits, &magnitude, 4);
  bits |= sign;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

std::optional<WrapMode> parse_wrap_mode(std::string_view name) {
  if (name == "black") return WrapMode::Black;
  if (name == "clamp") return WrapMode::Clamp;
  if (name == "periodic" || name == "repeat") return WrapMode::Periodic;
  if (name == "mirror") return WrapMode::Mirror;
  return std::nullopt;
}

const char* wrap_mode_name(WrapMode mode) {
  switch (mode) {
    case WrapMode::Black: return "black";
    case WrapMode::Clamp: return "clamp";
    case WrapMode::Periodic: return "periodic";
    case WrapMode::Mirror: return "mirror";
  }
  return "black";
}

struct TxFile::Handle {
  TIFF* tiff = nullptr;
  std::span<const std::byte> memory;  // open_memory(): the bytes libtiff reads
  std::uint64_t at = 0;               // the read position
  int fd = -1;                        // open() and open_at(): the file, read from `offset` on
  std::uint64_t offset = 0, size = 0;
  int read_fd = -1;  // the file raw tiles are read from (fd); -1 in memory
  // Per level: the offset of every tile when its tiles are raw and read as stored (see tx_file.h),
  // else empty. Written by open, read-only afterwards: read without the lock.
  std::vector<std::vector<std::uint64_t>> raw_tile_offsets;
  ~Handle() {
    if (tiff) textures::tiff().close(tiff);
    if (fd >= 0) ::close(fd);
  }
};

namespace {

// libtiff's client I/O over TxFile::Handle::memory: reads copy out of it, and the map procedure
// hands libtiff the bytes themselves, so tiles decode straight from the mapped pack.
tmsize_t memory_read(thandle_t h, void* out, tmsize_t n) {
  auto* handle = static_cast<TxFile::Handle*>(h);
  const std::uint64_t size = handle->memory.size();
  if (n < 0 || handle->at >= size) return 0;
  const std::uint64_t count = std::min<std::uint64_t>(std::uint64_t(n), size - handle->at);
  std::memcpy(out, handle->memory.data() + handle->at, count);
  handle->at += count;
  return tmsize_t(count);
}
tmsize_t memory_write(thandle_t, void*, tmsize_t) { return -1; }
toff_t memory_seek(thandle_t h, toff_t offset, int whence) {
  auto* handle = static_cast<TxFile::Handle*>(h);
  const std::uint64_t base = whence == SEEK_CUR ? handle->at : whence == SEEK_END ? handle->memory.size() : 0;
  handle->at = base + offset;
  return handle->at;
}
int memory_close(thandle_t) { return 0; }
toff_t memory_size(thandle_t h) { return static_cast<TxFile::Handle*>(h)->memory.size(); }
int memory_map(thandle_t h, void** base, toff_t* size) {
  auto* handle = static_cast<TxFile::Handle*>(h);
  *base = const_cast<std::byte*>(handle->memory.data());
  *size = handle->memory.size();
  return 1;
}
void memory_unmap(thandle_t, void*, toff_t) {}

// The same over a part of a file: positional reads from Handle::offset on, no mapping.
tmsize_t file_read(thandle_t h, void* out, tmsize_t n) {
  auto* handle = static_cast<TxFile::Handle*>(h);
  if (n < 0 || handle->at >= handle->size) return 0;
  const std::uint64_t count = std::min<std::uint64_t>(std::uint64_t(n), handle->size - handle->at);
  std::uint64_t done = 0;
  while (done < count) {
    const ssize_t got =
        ::pread(handle->fd, static_cast<char*>(out) + done, count - done, off_t(handle->offset + handle->at + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += std::uint64_t(got);
  }
  handle->at += done;
  return tmsize_t(done);
}
toff_t file_seek(thandle_t h, toff_t offset, int whence) {
  auto* handle = static_cast<TxFile::Handle*>(h);
  const std::uint64_t base = whence == SEEK_CUR ? handle->at : whence == SEEK_END ? handle->size : 0;
  handle->at = base + offset;
  return handle->at;
}
toff_t file_size(thandle_t h) { return static_cast<TxFile::Handle*>(h)->size; }
int no_map(thandle_t, void**, toff_t*) { return 0; }

}  // namespace

namespace {
std::atomic<std::uint64_t> g_open_handles{0};

// A file that is not a TIFF at all is named for what it is, not by libtiff's "bad magic number".
std::optional<std::string> not_a_tiff(std::span<const unsigned char> head) {
  const auto starts = [&](std::initializer_list<unsigned char> magic) {
    return head.size() >= magic.size() && std::equal(magic.begin(), magic.end(), head.begin());
  };
  if (starts({'I', 'I', 42, 0}) || starts({'M', 'M', 0, 42}) || starts({'I', 'I', 43, 0}) || starts({'M', 'M', 0, 43}))
    return std::nullopt;
  const char* what = starts({0x89, 'P', 'N', 'G'})      ? "a PNG image"
                     : starts({0xff, 0xd8, 0xff})       ? "a JPEG image"
                     : starts({0x76, 0x2f, 0x31, 0x01}) ? "an OpenEXR image"
                     : starts({'#', '?'})               ? "a Radiance HDR image"
                     : head.empty()                     ? "empty"
                                                        : "not a TIFF";
  return std::string("not a .tx file (") + what +
         "): kiln texture export and thumb read source images, a cook converts them";
}
}  // namespace

std::uint64_t TxFile::open_handles() { return g_open_handles.load(std::memory_order_relaxed); }

TxFile::Identity TxFile::identity() const {
  if (!handle_->memory.empty())  // in memory: the bytes never change under a handle; named by content
    return {handle_->memory.size(), 0, cache::xxh3_64(handle_->memory)};
  struct stat st;
  if (::fstat(handle_->fd >= 0 ? handle_->fd : tiff().fileno(handle_->tiff), &st) != 0) return {};
  return {std::uint64_t(st.st_size),
          std::uint64_t(st.st_mtim.tv_sec) * 1'000'000'000ull + std::uint64_t(st.st_mtim.tv_nsec),
          std::uint64_t(st.st_ino)};
}

TxFile::TxFile(std::filesystem::path path, std::unique_ptr<Handle> handle, TxInfo info)
    : path_(std::move(path)), handle_(std::move(handle)), info_(std::move(info)) {
  g_open_handles.fetch_add(1, std::memory_order_relaxed);
}
TxFile::~TxFile() { g_open_handles.fetch_sub(1, std::memory_order_relaxed); }

Result<std::unique_ptr<TxFile>> TxFile::open(const std::filesystem::path& path) { return open_at(path, 0); }

Result<std::unique_ptr<TxFile>> TxFile::open_at(const std::filesystem::path& path, std::uint64_t offset) {
  const std::string name = path.string();
  if (Status loaded = begin_tiff_call(); !loaded) return make_error(name + ": " + loaded.error().message);
  // Read through positional reads, never a mapping: a file that shrinks under a reader is then a
  // short read naming it, not SIGBUS (libtiff maps the files it opens by name).
  auto opened = open_input_file(path, std::numeric_limits<std::uint64_t>::max(), "texture");
  if (!opened) return opened.error();
  auto handle = std::make_unique<Handle>();
  handle->fd = opened->fd;
  if (opened->size < offset) return make_error(name + ": not a .tx entry (the file ends before it)");
  handle->offset = offset;
  handle->size = opened->size - offset;
  handle->read_fd = handle->fd;
  unsigned char head[4] = {};
  const ssize_t got = ::pread(handle->fd, head, sizeof head, off_t(offset));
  if (auto why = not_a_tiff(std::span(head, got > 0 ? std::size_t(got) : 0))) return make_error(name + ": " + *why);
  handle->tiff = tiff().client_open(name.c_str(), "rm", handle.get(), file_read, memory_write, file_seek, memory_close,
                                    file_size, no_map, memory_unmap);
  if (!handle->tiff)
    return make_error(name + ": cannot open as TIFF" + (tiff_error().empty() ? "" : " (" + tiff_error() + ")"));
  return read_levels(path, std::move(handle));
}

Result<std::unique_ptr<TxFile>> TxFile::open_memory(const std::string& name, std::span<const std::byte> bytes) {
  if (Status loaded = begin_tiff_call(); !loaded) return make_error(name + ": " + loaded.error().message);
  auto handle = std::make_unique<Handle>();
  handle->memory = bytes;
  if (auto why = not_a_tiff(
          std::span(reinterpret_cast<const unsigned char*>(bytes.data()), std::min<std::size_t>(bytes.size(), 4))))
    return make_error(name + ": " + *why);
  handle->tiff = tiff().client_open(name.c_str(), "r", handle.get(), memory_read, memory_write, memory_seek,
                                    memory_close, memory_size, memory_map, memory_unmap);
  if (!handle->tiff)
    return make_error(name + ": cannot open as TIFF" + (tiff_error().empty() ? "" : " (" + tiff_error() + ")"));
  return read_levels(name, std::move(handle));
}

Result<std::unique_ptr<TxFile>> TxFile::read_levels(std::filesystem::path path, std::unique_ptr<Handle> handle) {
  const std::string name = path.string();
  TIFF* tif = handle->tiff;
  TxInfo info;
  int directory = 0;
  do {
    const std::string where = name + ": level " + std::to_string(directory) + ": ";
    if (!tiff().is_tiled(tif)) return make_error(where + "not tiled (a .tx file stores every level in tiles)");
    TxLevel level;
    std::uint16_t spp = 0, bps = 0, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG;
    if (!tiff().get_field(tif, TIFFTAG_IMAGEWIDTH, &level.width) ||
        !tiff().get_field(tif, TIFFTAG_IMAGELENGTH, &level.height) ||
        !tiff().get_field(tif, TIFFTAG_TILEWIDTH, &level.tile_width) ||
        !tiff().get_field(tif, TIFFTAG_TILELENGTH, &level.tile_height))
      return make_error(where + "missing size or tile size tags");
    tiff().get_field_defaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    tiff().get_field_defaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    tiff().get_field_defaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    tiff().get_field_defaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    if (level.width == 0 || level.height == 0 || level.tile_width == 0 || level.tile_height == 0)
      return make_error(where + "empty image or tile");
    if (spp < 1 || spp > 4) return make_error(where + std::to_string(spp) + " channels (1 to 4 are supported)");
    if (level.width > limits::kImageSide || level.height > limits::kImageSide)
      return make_error(where + std::to_string(level.width) + "x" + std::to_string(level.height) +
                        " is larger than the limit of " + std::to_string(limits::kImageSide) + " pixels per side");
    if (level.tile_width > limits::kTileSide || level.tile_height > limits::kTileSide ||
        std::uint64_t(level.tile_width) * level.tile_height * spp * (bps / 8) > limits::kDecodedTileBytes)
      return make_error(where + "tiles of " + std::to_string(level.tile_width) + "x" +
                        std::to_string(level.tile_height) + " are larger than the limit (" +
                        std::to_string(limits::kTileSide) + " pixels per side, " +
                        describe_bytes(limits::kDecodedTileBytes) + " decoded)");
    if (planar != PLANARCONFIG_CONTIG) return make_error(where + "planar (separate) channels are not supported");
    const bool is_float = format == SAMPLEFORMAT_IEEEFP;
    if (!((format == SAMPLEFORMAT_UINT || is_float) && (bps == 16 || bps == (is_float ? 32 : 8))))
      return make_error(where + std::to_string(bps) + "-bit " + (is_float ? "float" : "integer") +
                        " samples (8/16-bit integers, 16-bit half and 32-bit floats are supported)");
    handle->raw_tile_offsets.push_back(
        raw_tile_offsets(tif, level, std::uint64_t(level.tile_width) * level.tile_height * spp * (bps / 8), bps));
    if (directory == 0) {
      info.compression = compression_of(tif);
      info.channels = spp;
      info.bits_per_sample = bps;
      info.is_float = is_float;
      info.alpha = alpha_of(tif, spp);
      char* description = nullptr;
      if (tiff().get_field(tif, TIFFTAG_IMAGEDESCRIPTION, &description) && description) {
        const std::string text = description;
        info.average_color = parse_color(text, "oiio:AverageColor");
        info.constant_color = parse_color(text, "oiio:ConstantColor");
        if (auto at = text.find("oiio:SHA-1="); at != std::string::npos) info.sha1 = text.substr(at + 11, 40);
        if (auto at = text.find("oiio:ColorSpace="); at != std::string::npos)
          info.color_space = text.substr(at + 16, text.find(' ', at) - at - 16);
        info.normal_map = text.find("kiln:NormalMap=1") != std::string::npos;
        info.nearest = text.find("kiln:Filter=nearest") != std::string::npos;
      }
      char* wrapmodes = nullptr;
      if (tiff().get_field(tif, TIFFTAG_PIXAR_WRAPMODES, &wrapmodes) && wrapmodes) {
        auto modes = parse_wrap_modes(wrapmodes);
        if (!modes) return make_error(where + modes.error().message);
        std::tie(info.wrap_s, info.wrap_t) = *modes;
      }
    } else {
      const TxLevel& prev = info.levels.back();
      if (spp != info.channels || bps != info.bits_per_sample || is_float != info.is_float)
        return make_error(where + "channels or sample format differ from level 0");
      if (level.width != std::max(1u, prev.width / 2) || level.height != std::max(1u, prev.height / 2))
        return make_error(where + std::to_string(level.width) + "x" + std::to_string(level.height) +
                          " is not half of the previous level (" + std::to_string(prev.width) + "x" +
                          std::to_string(prev.height) + ")");
    }
    info.levels.push_back(level);
    ++directory;
  } while (tiff().read_directory(tif));
  if (!tiff_error().empty()) return make_error(name + ": " + tiff_error());
  // maketx's chain always ends at 1x1: one that stops earlier lost its last levels.
  if (const TxLevel& last = info.levels.back(); last.width != 1 || last.height != 1)
    return make_error(name + ": missing levels: the mip chain ends at " + std::to_string(last.width) + "x" +
                      std::to_string(last.height) + ", not 1x1");
  return std::unique_ptr<TxFile>(new TxFile(path, std::move(handle), std::move(info)));
}

Result<TileBytes> TxFile::read_stored(std::size_t level, std::uint32_t tx, std::uint32_t ty) {
  if (level >= info_.levels.size()) return make_error(path_.string() + ": no level " + std::to_string(level));
  const TxLevel& l = info_.levels[level];
  if (tx >= l.tiles_x() || ty >= l.tiles_y())
    return make_error(path_.string() + ": level " + std::to_string(level) + " has no tile " + std::to_string(tx) + "," +
                      std::to_string(ty));
  TileBytes raw(std::size_t(l.tile_width) * l.tile_height * info_.channels * (info_.bits_per_sample / 8));
  if (const auto& offsets = handle_->raw_tile_offsets[level]; !offsets.empty()) {
    if (auto read = read_raw(offsets[std::size_t(ty) * l.tiles_x() + tx], raw); !read)
      return make_error(path_.string() + ": level " + std::to_string(level) + " tile " + std::to_string(tx) + "," +
                        std::to_string(ty) + ": " + read.error().message);
    return raw;
  }
  // A decoder that stops short on damaged data must not hand out what the heap held before.
  std::fill(raw.begin(), raw.end(), std::uint8_t(0));
  std::lock_guard lock(mu_);
  (void)begin_tiff_call();  // loaded: this file was opened through it
  TIFF* tif = handle_->tiff;
  // Changing directory re-reads its tags: only when the level changes.
  const bool positioned =
      tiff().current_directory(tif) == level || tiff().set_directory(tif, static_cast<tdir_t>(level));
  if (!positioned || tiff().read_tile(tif, raw.data(), tx * l.tile_width, ty * l.tile_height, 0, 0) < 0)
    return make_error(path_.string() + ": level " + std::to_string(level) + " tile " + std::to_string(tx) + "," +
                      std::to_string(ty) + ": cannot read" + (tiff_error().empty() ? "" : " (" + tiff_error() + ")"));
  return raw;
}

Status TxFile::read_raw(std::uint64_t at, std::span<std::uint8_t> out) const {
  const Handle& h = *handle_;
  if (!h.memory.empty()) {
    if (at > h.memory.size() || out.size() > h.memory.size() - at) return make_error("the data ends inside the tile");
    std::memcpy(out.data(), h.memory.data() + at, out.size());
    return {};
  }
  for (std::size_t done = 0; done < out.size();) {
    const ssize_t n = ::pread(h.read_fd, out.data() + done, out.size() - done, off_t(h.offset + at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) return make_error("the file ends inside the tile (truncated?)");
    done += std::size_t(n);
  }
  return {};
}

namespace {

// The tiles of `level` put together, each read by `read(tx, ty)` as tile_width * tile_height RGBA texels.
template <class Texel, class ReadTile>
Result<std::vector<Texel>> assemble_level(const TxLevel& tl, ReadTile read) {
  std::vector<Texel> out(std::size_t(tl.width) * tl.height * 4);
  for (std::uint32_t ty = 0; ty < tl.tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < tl.tiles_x(); ++tx) {
      auto tile = read(tx, ty);
      if (!tile) return tile.error();
      const std::uint32_t x0 = tx * tl.tile_width, y0 = ty * tl.tile_height;
      const std::uint32_t w = std::min(tl.tile_width, tl.width - x0), h = std::min(tl.tile_height, tl.height - y0);
      for (std::uint32_t y = 0; y < h; ++y)
        std::memcpy(&out[(std::size_t(y0 + y) * tl.width + x0) * 4], &(*tile)[std::size_t(y) * tl.tile_width * 4],
                    std::size_t(w) * 4 * sizeof(Texel));
    }
  return out;
}

}  // namespace

Result<std::vector<std::uint8_t>> TxFile::read_level_rgba8(std::size_t level) {
  if (level >= info_.levels.size()) return make_error(path_.string() + ": no level " + std::to_string(level));
  return assemble_level<std::uint8_t>(
      info_.levels[level], [&](std::uint32_t tx, std::uint32_t ty) { return read_tile_rgba8(level, tx, ty); });
}

Result<std::vector<float>> TxFile::read_level_rgba(std::size_t level) {
  if (level >= info_.levels.size()) return make_error(path_.string() + ": no level " + std::to_string(level));
  return assemble_level<float>(info_.levels[level],
                               [&](std::uint32_t tx, std::uint32_t ty) { return read_tile_rgba(level, tx, ty); });
}

Result<std::vector<float>> TxFile::read_tile_rgba(std::size_t level, std::uint32_t tx, std::uint32_t ty) {
  auto raw = read_stored(level, tx, ty);
  if (!raw) return raw.error();
  const int channels = info_.channels, bytes = info_.bits_per_sample / 8;
  const std::size_t pixels = raw->size() / (std::size_t(channels) * bytes);
  std::vector<float> rgba(pixels * 4);
  for (std::size_t p = 0; p < pixels; ++p) {
    float v[4] = {0, 0, 0, 1};
    for (int c = 0; c < channels; ++c) {
      const std::uint8_t* sample = &(*raw)[(p * channels + c) * bytes];
      if (bytes == 1) {
        v[c] = *sample / 255.0f;
      } else if (bytes == 2) {
        std::uint16_t bits;
        std::memcpy(&bits, sample, 2);
        v[c] = info_.is_float ? half_to_float(bits) : bits / 65535.0f;
      } else {
        std::memcpy(&v[c], sample, 4);
      }
    }
    float* out = &rgba[p * 4];
    if (channels <= 2) {  // gray (and gray + alpha)
      out[0] = out[1] = out[2] = v[0];
      out[3] = channels == 2 ? v[1] : 1.0f;
    } else {
      out[0] = v[0], out[1] = v[1], out[2] = v[2];
      out[3] = channels == 4 ? v[3] : 1.0f;
    }
    if (info_.alpha == TxAlpha::kUnassociated)
      for (int c = 0; c < 3; ++c) out[c] *= out[3];
  }
  return rgba;
}

Result<TileBytes> TxFile::read_tile_rgba8(std::size_t level, std::uint32_t tx, std::uint32_t ty) {
  if (info_.bits_per_sample != 8) {  // deeper samples: through floats, rounded once
    auto rgba = read_tile_rgba(level, tx, ty);
    if (!rgba) return rgba.error();
    TileBytes out(rgba->size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = to_u8((*rgba)[i]);
    return out;
  }
  auto raw = read_stored(level, tx, ty);
  if (!raw) return raw.error();
  const int channels = info_.channels;
  const std::size_t pixels = raw->size() / channels;
  // RGBA8 stored as delivered (what maketx makes of most textures) is the result itself.
  if (channels == 4 && info_.alpha != TxAlpha::kUnassociated) return raw;
  // Four channels are converted in place; fewer are spread to RGBA.
  TileBytes rgba = channels == 4 ? std::move(*raw) : TileBytes(pixels * 4);
  for (std::size_t p = 0; p < pixels; ++p) {
    std::uint8_t* out = &rgba[p * 4];
    if (channels != 4) {
      const std::uint8_t* in = &(*raw)[p * channels];
      if (channels == 3) {
        out[0] = in[0], out[1] = in[1], out[2] = in[2], out[3] = 255;
      } else {  // gray, gray + alpha
        out[0] = out[1] = out[2] = in[0];
        out[3] = channels == 2 ? in[1] : 255;
      }
    }
    if (info_.alpha == TxAlpha::kUnassociated)  // v * a / 255, rounded: k/255 >= 1/2 exactly when k + 127 >= 255
      for (int c = 0; c < 3; ++c) out[c] = std::uint8_t((unsigned(out[c]) * out[3] + 127) / 255);
  }
  return rgba;
}

}  // namespace kiln::textures
