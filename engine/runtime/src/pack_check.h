#pragma once
// What every reader of a pack checks before it trusts a payload's place (Pack reads the file whole,
// PackFile reads its metadata and then one payload at a time): the header, then the index, the
// identity and the names. Errors name the pack (`name`) and, for the index, the entry.

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "kiln/cache/hash.h"
#include "kiln/core/result.h"
#include "kiln/runtime/pack.h"
#include "pack_layout.h"

namespace kiln::runtime::pack_check {

std::uint64_t xxh3_of(const void* p, std::size_t n);
std::uint64_t round_up8(std::uint64_t n);
bool all_zero(const std::byte* p, std::size_t n);

// The header of a pack file of `length` bytes whose first bytes are `start` (at least a header's):
// its magic, version, kind and checksum, and that its index and names lie inside the file.
Result<pack_layout::Header> header(const std::string& name, std::span<const std::byte> start, std::uint64_t length,
                                   PackKind kind);

// `meta`, the file's first h.data_offset bytes: the metadata checksum, zero padding before the data,
// every payload in index order inside the data with nothing between them but padding (whose bytes
// the caller checks if it has them), every name inside the names and hashing to its key, keys
// sorted. Does not read a payload.
Status metadata(const std::string& name, const pack_layout::Header& h, std::span<const std::byte> meta,
                std::uint64_t length);

// The index entry of `key` among `count` sorted entries at `index`.
std::optional<pack_layout::IndexEntry> find(const std::byte* index, std::size_t count, const cache::Hash128& key);

}  // namespace kiln::runtime::pack_check
