#pragma once
// Packs: what the cook writes and the shipped game reads, one file per content kind (shader
// variants, scripts, textures). Nothing needs parsing before use: the file is mapped and read in
// place.
//
//   header   magic, format version, kind, entry count, offsets, the identity it was cooked for
//            (build/namespace), checksums of the header and of the index
//   index    entries sorted by key (a 128-bit hash of the entry's name) for binary search: key,
//            payload offset and length, payload checksum, name offset and length
//   data     names, the identity text, payloads (8-byte aligned)
//
// Every payload is checksummed (XXH3-64) and checked when it is read. A truncated, bit-flipped or
// other-version pack is refused naming the pack and the entry; the same entries always make the
// same bytes (sorted, no times, no paths). Written through a temp file and a rename.
//
// Thread-safety: PackWriter is owned by one thread; a Pack may be read from any thread.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/cache/hash.h"
#include "kiln/core/result.h"

namespace kiln::runtime {

enum class PackKind : std::uint32_t { kShaders = 1, kScripts = 2, kTextures = 3 };
inline constexpr std::uint32_t kPackVersion = 1;

// The key of an entry name: what lookups hash, and what messages print as a digest.
cache::Hash128 pack_key(std::string_view name);

class PackWriter {
 public:
  PackWriter(PackKind kind, std::string identity);
  void add(std::string name, std::vector<std::byte> payload);  // a name added twice is an error at write()
  Status write(const std::filesystem::path& path) const;

 private:
  PackKind kind_;
  std::string identity_;
  std::vector<std::pair<std::string, std::vector<std::byte>>> entries_;
};

class Pack {
 public:
  // Maps and checks the header and the index (payloads are checked when read).
  static Result<std::unique_ptr<Pack>> open(const std::filesystem::path& path, PackKind kind);
  ~Pack();
  Pack(const Pack&) = delete;
  Pack& operator=(const Pack&) = delete;

  const std::string& identity() const { return identity_; }
  std::size_t size() const { return count_; }
  // The payload of `name`: nullopt when the pack has no such entry; an error when its bytes are
  // corrupt.
  Result<std::optional<std::span<const std::byte>>> find(std::string_view name) const;
  // The names of every entry, in index order.
  std::vector<std::string> names() const;
  const std::filesystem::path& path() const { return path_; }

 private:
  Pack() = default;
  std::filesystem::path path_;
  const std::byte* base_ = nullptr;
  std::size_t length_ = 0;
  std::size_t count_ = 0;
  const std::byte* index_ = nullptr;
  std::string identity_;
};

}  // namespace kiln::runtime
