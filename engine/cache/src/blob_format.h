#pragma once
// The on-disk format of one blob: a 64-byte little-endian header, then the payload.
//
//   0  magic "KILNBLOB"      8
//   8  format version u32    4
//  12  header size u32       4
//  16  key (XXH3-128)       16   high half first, big-endian, as in the file name
//  32  payload length u64    8
//  40  payload XXH3-64 u64   8
//  48  reserved (zero)       8
//  56  header XXH3-64 u64    8   of bytes 0..55
//
// IMPORTANT: bump kFormatVersion with any change here; an older blob is then a miss.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kiln/cache/blob_store.h"

namespace kiln::cache::blob_format {

inline constexpr std::size_t kHeaderSize = 64;
static_assert(kHeaderSize == kBlobPayloadOffset);
inline constexpr std::uint32_t kFormatVersion = 1;
inline constexpr std::string_view kExtension = ".blob";

Bytes encode(const BlobKey& key, std::span<const std::byte> payload);

// Blobs larger than this are refused as corrupt rather than read into memory.
inline constexpr std::uint64_t kMaxBlobBytes = std::uint64_t{1} << 30;

struct HeaderProblem {
  enum Kind { kCorrupt, kOtherVersion } kind;
  std::string text;
};

// Checks the 64-byte header alone against `key` and the file's size, before the payload is read.
// A sound header of another format version is not corruption: another build's blob, a miss.
// kUnknownSize: the size is not known yet (a blob arriving from a server), only bounded.
inline constexpr std::uint64_t kUnknownSize = ~std::uint64_t{0};
std::optional<HeaderProblem> check_header(std::span<const std::byte> header, const BlobKey& key,
                                          std::uint64_t file_size);

// The whole size of the blob of `key` whose header is `header` (64 bytes), or what is wrong with
// the header: what a remote read checks before it takes in the rest.
Result<std::uint64_t> blob_size_from_header(std::span<const std::byte> header, const BlobKey& key);

// The problem with `file` as the blob of `key`, or nothing if it is sound.
std::optional<std::string> check(std::span<const std::byte> file, const BlobKey& key);

// The key a blob file name ("<32 hex>.blob") stands for.
std::optional<BlobKey> key_from_file_name(std::string_view name);

}  // namespace kiln::cache::blob_format
