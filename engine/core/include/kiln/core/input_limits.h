#pragma once
// The limits Kiln checks its inputs against before doing the work, in one place. Each is far above
// what a real project needs and far below what would exhaust a workstation; each refusal names the
// file, the size found and the limit. RELIABILITY.md lists them with the reasons.

#include <cstdint>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "kiln/core/result.h"

namespace kiln::limits {

inline constexpr std::uint32_t kImageSide = 65536;               // pixels per side of an image or .tx level
inline constexpr std::uint64_t kDecodedImageBytes = 1ull << 30;  // a plain image (PNG, TIFF) decoded whole
inline constexpr std::uint32_t kTileSide = 4096;                 // pixels per side of a .tx tile
inline constexpr std::uint64_t kDecodedTileBytes = 64ull << 20;  // one .tx tile decoded
inline constexpr std::uint64_t kScriptBytes = 8ull << 20;  // a script source (it costs ~130x in memory to compile)
inline constexpr std::uint64_t kShaderSourceBytes = 16ull << 20;  // a shader stage or include file
inline constexpr std::uint64_t kJsonFileBytes = 16ull << 20;      // a material, project settings or config file
inline constexpr int kScriptNesting = 200;                        // nested blocks and expressions in a script
// Shader expressions have no depth limit of their own: compiles run in worker processes with a
// 256 MiB stack, a memory limit and a timeout (shaders.compile_*).

}  // namespace kiln::limits

namespace kiln {

// Reads a whole input file: it must be a regular file (not a directory, FIFO or device, which
// could hang or never end) of at most `max_bytes`. `what` names the kind in the message
// ("script", "material"): "x.lua: 52 MiB, more than the 8 MiB limit for a script".
Result<std::string> read_input_file(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view what);

// The same, into memory that is neither cleared first nor faulted in page by page: for large
// inputs read whole (packs), where zeroing the buffer and its page faults cost more than the read.
class InputBytes {
 public:
  InputBytes() = default;
  InputBytes(InputBytes&& other) noexcept { *this = std::move(other); }
  InputBytes& operator=(InputBytes&& other) noexcept;
  InputBytes(const InputBytes&) = delete;
  InputBytes& operator=(const InputBytes&) = delete;
  ~InputBytes();
  // Room for `capacity` bytes, not cleared.
  static InputBytes allocate(std::size_t capacity);

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  void set_size(std::size_t size) { size_ = size; }  // at most the capacity allocated
  std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_ = 0;  // the length of an anonymous mapping; 0: from new[]
};
Result<InputBytes> read_input_bytes(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view what);

// The one check every input goes through, for a reader that reads the file itself: opened without
// waiting (a FIFO must not block for a writer), a regular file, at most `max_bytes`. The caller
// owns (and closes) `fd`; `size` is the size seen when it was checked.
struct OpenedInput {
  int fd = -1;
  std::uint64_t size = 0;
};
Result<OpenedInput> open_input_file(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view what);

// The same checks as read_input_file, for an input a library then opens by name (an image
// decoder, a plugin): refused naming the file before anything could wait on it.
Status check_input_file(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view what);

// Whether anything is at `file`: a regular file, a directory, a FIFO, a device or a dangling
// link. Inputs are looked for with this rather than by type, so that something other than a
// regular file where an input belongs is refused by read_input_file naming it, never skipped.
bool input_present(const std::filesystem::path& file);

// "52 MiB", "812 KiB", "17 bytes" for whole units, "1.5 KiB" otherwise; a size that rounds to a
// whole unit without being one adds the exact count, "1.0 MiB (1048577 bytes)", so that a size
// just past a limit never reads as the limit itself.
std::string describe_bytes(std::uint64_t bytes);

}  // namespace kiln
