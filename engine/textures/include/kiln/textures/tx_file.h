#pragma once
// A .tx file: a tiled TIFF with one directory per mip level, as OpenImageIO's maketx writes it.
// Opening reads every level's size and tile grid and the metadata maketx puts in ImageDescription
// (oiio:AverageColor — a free 1-pixel preview — oiio:ConstantColor, oiio:SHA-1); it holds no
// pixels. Tiles are decoded on request and delivered as RGBA (8-bit, or floats at the file's
// precision), whatever the file stores (1-4 channels; 8/16-bit integers, 16-bit half or 32-bit
// floats; gray becomes RGB, a missing alpha opaque).
//
// Alpha is delivered premultiplied (associated), the convention of every consumer: colour stored
// straight (ExtraSamples "unassociated") is multiplied by alpha on delivery; associated alpha, and a
// fourth channel without the tag (as OpenImageIO assumes), is delivered as stored. An extra channel
// the file calls "unspecified" is not alpha (as OpenImageIO reads it): delivered in A as stored, and
// the texture counts as having no alpha.
//
// Raw (uncompressed) tiles of 8-bit samples, or of the machine's byte order, are read without
// libtiff: read from the file with positional reads, or copied out of the caller's memory, at the
// offset open() took from the file's tile tables. Every other tile goes through libtiff, whose
// reads come through the same positional reads. A file is never mapped: one truncated while open
// is a short read, an error naming it (a mapping would end the process with SIGBUS).
//
// Thread-safety: info() from any thread; read_tile_rgba8() from any thread (a libtiff handle is not
// thread-safe, so libtiff reads of one TxFile are serialised by its mutex; parallel loads of
// different tiles come from one TxFile per reading thread, which the tile cache arranges). Raw tiles
// are read without the lock.

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::textures {

// What a lookup outside [0, 1] reads (the TIFF `wrapmodes` tag maketx writes; OIIO's names).
enum class WrapMode { Black, Clamp, Periodic, Mirror };
// "black", "clamp", "periodic" (also "repeat"), "mirror"; nullopt for anything else.
std::optional<WrapMode> parse_wrap_mode(std::string_view name);
const char* wrap_mode_name(WrapMode mode);

// IEEE 754 binary16 (a half-float sample) to float, NaN and infinities included.
float half_to_float(std::uint16_t bits);
// float to binary16, rounded to nearest even; beyond the largest half (65504) is infinity, NaN stays NaN.
std::uint16_t float_to_half(float value);

// What the file's alpha channel is; kNone: no alpha (1 or 3 channels, or an unspecified extra one).
enum class TxAlpha { kNone, kAssociated, kUnassociated };

// A byte buffer whose elements are left unset when it is sized: tile buffers are written whole right
// after, and zeroing 16 KiB first would cost a fifth of a raw tile's read.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using TileBytes = std::vector<std::uint8_t, UninitializedAllocator<std::uint8_t>>;

struct TxLevel {
  std::uint32_t width = 0, height = 0;
  std::uint32_t tile_width = 0, tile_height = 0;
  std::uint32_t tiles_x() const { return (width + tile_width - 1) / tile_width; }
  std::uint32_t tiles_y() const { return (height + tile_height - 1) / tile_height; }
};

struct TxInfo {
  std::vector<TxLevel> levels;  // [0] is the full image
  int channels = 0;
  int bits_per_sample = 0;
  bool is_float = false;  // 16-bit half or 32-bit float
  TxAlpha alpha = TxAlpha::kNone;
  std::optional<std::array<float, 4>> average_color;            // oiio:AverageColor, RGBA
  std::optional<std::array<float, 4>> constant_color;           // oiio:ConstantColor: the texture is one colour
  std::string sha1;                                             // oiio:SHA-1 of the source pixels
  WrapMode wrap_s = WrapMode::Black, wrap_t = WrapMode::Black;  // from `wrapmodes`; maketx's default
  std::string color_space;                                      // oiio:ColorSpace ("sRGB", "linear", ...) when recorded
  bool normal_map = false;                                      // kiln:NormalMap=1
  bool nearest = false;                                         // kiln:Filter=nearest
  std::string compression;  // level 0's: "none", "zip", "zstd", "lzw", "packbits", ... or "code N"
};

class TxFile {
 public:
  // Fails naming the file and the problem: not a regular file (a FIFO is refused, not waited on),
  // not a TIFF, not tiled, a level that is not half the previous, unsupported sample formats...
  static Result<std::unique_ptr<TxFile>> open(const std::filesystem::path& path);
  // The same from a .tx stored at `offset` bytes into a file (a cache entry after its header),
  // read through libtiff's client I/O with positional reads.
  static Result<std::unique_ptr<TxFile>> open_at(const std::filesystem::path& path, std::uint64_t offset);
  // The same from bytes in memory (a pack entry), read through libtiff's client
  // I/O without a copy. `bytes` must outlive the TxFile; `name` stands for the path in errors.
  static Result<std::unique_ptr<TxFile>> open_memory(const std::string& name, std::span<const std::byte> bytes);
  ~TxFile();
  TxFile(const TxFile&) = delete;
  TxFile& operator=(const TxFile&) = delete;

  const TxInfo& info() const { return info_; }
  const std::filesystem::path& path() const { return path_; }
  // libtiff handles open in this process (every TxFile holds one).
  static std::uint64_t open_handles();
  // The open file's size, modification time (ns) and inode: which file this handle reads, even
  // after the path was renamed over.
  struct Identity {
    std::uint64_t size = 0, mtime_ns = 0, inode = 0;
    bool operator==(const Identity&) const = default;
  };
  Identity identity() const;

  // The tile (tx, ty) of `level` as tile_width * tile_height RGBA8 pixels, premultiplied, rows top
  // to bottom; the part of an edge tile outside the image is whatever the file padded it with.
  Result<TileBytes> read_tile_rgba8(std::size_t level, std::uint32_t tx, std::uint32_t ty);
  // The same as RGBA floats at the file's precision (8-bit values / 255, 16-bit / 65535, floats as
  // stored): for consumers that must not lose what an 8-bit tile rounds away.
  Result<std::vector<float>> read_tile_rgba(std::size_t level, std::uint32_t tx, std::uint32_t ty);
  // A whole level, its tiles put together (width * height RGBA texels, rows top to bottom): what an
  // upload or an encoder takes.
  Result<std::vector<std::uint8_t>> read_level_rgba8(std::size_t level);
  Result<std::vector<float>> read_level_rgba(std::size_t level);

  struct Handle;  // opaque: the libtiff handle and, for open_memory(), its bytes

 private:
  TxFile(std::filesystem::path path, std::unique_ptr<Handle> handle, TxInfo info);
  static Result<std::unique_ptr<TxFile>> read_levels(std::filesystem::path path, std::unique_ptr<Handle> handle);
  // The tile's samples as stored, checked and read under the handle's lock.
  Result<TileBytes> read_stored(std::size_t level, std::uint32_t tx, std::uint32_t ty);
  // A raw tile's bytes at `at` in the .tx, without libtiff or the lock.
  Status read_raw(std::uint64_t at, std::span<std::uint8_t> out) const;

  std::filesystem::path path_;
  std::mutex mu_;  // guards handle_
  std::unique_ptr<Handle> handle_;
  TxInfo info_;
};

}  // namespace kiln::textures
