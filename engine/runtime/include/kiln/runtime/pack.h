#pragma once
// Packs: what the cook writes and the shipped game reads, one file per content kind (shader
// variants, scripts, textures). Nothing needs parsing before use: entries are read in place.
//
//   header   magic, format version, kind, entry count, sizes, the checksum of everything from the
//            index to the last name, and its own checksum
//   index    entries sorted by key (a 128-bit hash of the entry's name) for binary search: key,
//            payload offset and length, payload checksum, name offset and length
//   strings  the identity the pack was cooked for (build, namespace), then every entry's name
//   data     payloads, 8-byte aligned
//
// Every byte is covered by a checksum (XXH3-64): the header by its own, the index, identity and
// names by the header's metadata checksum (checked at open), each payload by its index entry's
// (checked when read). So the header checksum stands for the whole pack: a manifest that names it
// names every byte. A truncated, bit-flipped, hand-made or other-version pack is refused naming the
// pack and the entry; offsets are checked without overflow. The same entries always make the same
// bytes (sorted, no times, no paths).
//
// A pack is read whole into memory the reader owns, not mapped: a file truncated or rewritten in
// place while a game runs is then an error when it is opened, never SIGBUS afterwards.
//
// Thread-safety: PackWriter is owned by one thread; a Pack may be read from any thread.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/cache/hash.h"
#include "kiln/core/input_limits.h"
#include "kiln/core/result.h"

namespace kiln::runtime {

enum class PackKind : std::uint32_t { kShaders = 1, kScripts = 2, kTextures = 3 };
inline constexpr std::uint32_t kPackVersion = 2;
std::string_view pack_kind_name(PackKind kind);  // "shaders", "scripts", "textures"

// The key of an entry name: what lookups hash, and what messages print as a digest.
cache::Hash128 pack_key(std::string_view name);

// Entries go to a PayloadSpill as they are added (memory for small packs, an anonymous temp file
// past a few MiB): a writer holds each entry's name and checksum, not its bytes, and writes the
// pack as a stream, so a cook's memory does not grow with what it packs.
class PayloadSpill;

class PackWriter {
 public:
  PackWriter(PackKind kind, std::string identity);
  ~PackWriter();
  PackWriter(PackWriter&&) noexcept;
  PackWriter& operator=(PackWriter&&) noexcept;
  PackKind kind() const { return kind_; }
  void set_identity(std::string identity) { identity_ = std::move(identity); }
  std::size_t size() const { return entries_.size(); }
  void add(std::string name, std::span<const std::byte> payload);  // a name added twice is an error at encode()

  // The pack's bytes, whole; `where` names it in errors.
  Result<std::vector<std::byte>> encode(const std::string& where) const;
  // The same bytes in order, in pieces, to `sink` (which may fail the stream).
  using Sink = std::function<Status(std::span<const std::byte>)>;
  Status stream(const std::string& where, const Sink& sink) const;
  // The checksum its header will carry (pack_checksum of its bytes), known without writing them.
  Result<std::uint64_t> checksum(const std::string& where) const;
  Status write(const std::filesystem::path& path) const;  // stream() through a temp file and a rename

 private:
  struct Entry {
    std::string name;
    cache::Hash128 key;
    std::uint64_t at = 0, length = 0, checksum = 0;  // in the spill
  };
  struct Layout;
  Result<Layout> layout(const std::string& where) const;

  PackKind kind_;
  std::string identity_;
  std::vector<Entry> entries_;
  std::unique_ptr<PayloadSpill> spill_;
};

// The checksum a pack's header carries for itself, which stands for every byte of the pack.
// `bytes` is a whole encoded pack; 0 when it is too short to have a header.
std::uint64_t pack_checksum(std::span<const std::byte> bytes);

class Pack {
 public:
  // Reads the pack and checks the header, the index and the names (payloads are checked when read).
  // `check_bytes`, when given, sees every byte read before anything of them is parsed (a signed
  // set's SHA-256), and its error is open()'s.
  using BytesCheck = std::function<Status(std::span<const std::byte> whole_file)>;
  static Result<std::unique_ptr<Pack>> open(const std::filesystem::path& path, PackKind kind,
                                            const BytesCheck& check_bytes = {});
  ~Pack();
  Pack(const Pack&) = delete;
  Pack& operator=(const Pack&) = delete;

  const std::string& identity() const { return identity_; }
  std::size_t size() const { return count_; }
  std::uint64_t checksum() const { return checksum_; }  // the header's: stands for the whole pack
  std::size_t file_size() const { return length_; }
  // Every byte of the pack as read (what the manifest's SHA-256 is of).
  std::span<const std::byte> bytes() const { return {base_, length_}; }
  // The payload of `name`: nullopt when the pack has no such entry; an error naming the pack and
  // the entry when its bytes are corrupt.
  Result<std::optional<std::span<const std::byte>>> find(std::string_view name) const;
  // The names of every entry, in index order.
  std::vector<std::string> names() const;
  const std::filesystem::path& path() const { return path_; }

 private:
  Pack() = default;
  std::filesystem::path path_;
  InputBytes bytes_;  // the whole file
  const std::byte* base_ = nullptr;
  std::size_t length_ = 0;
  std::size_t count_ = 0;
  const std::byte* index_ = nullptr;
  std::string identity_;
  std::uint64_t checksum_ = 0;
};

}  // namespace kiln::runtime
