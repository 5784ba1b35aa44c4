#pragma once
// The bytes of a pack file (kiln/runtime/pack.h): a header, the index sorted by key, the identity
// and the entry names, zero padding to a multiple of 8, then the payloads in index order, each
// padded with zeros to a multiple of 8 but the last, which ends the file. Private to
// engine/runtime (and the tests that forge packs).
//
// IMPORTANT: a change of either layout is a new kPackVersion.

#include <cstdint>

namespace kiln::runtime::pack_layout {

inline constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'P', 'A', 'C', 'K'};

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t kind;
  std::uint64_t count;
  std::uint64_t identity_length;  // the identity starts right after the index
  std::uint64_t strings_length;   // identity and names
  std::uint64_t data_offset;      // first payload; everything before it but the header is metadata
  std::uint64_t meta_checksum;    // XXH3-64 of the index, the identity and the names
  std::uint64_t header_checksum;  // XXH3-64 of the header with this field zero
};
static_assert(sizeof(Header) == 64);

struct IndexEntry {
  std::uint64_t key_high, key_low;
  std::uint64_t offset, length;
  std::uint64_t checksum;
  std::uint32_t name_offset, name_length;  // name_offset counts from the start of the file
};
static_assert(sizeof(IndexEntry) == 48);

}  // namespace kiln::runtime::pack_layout
