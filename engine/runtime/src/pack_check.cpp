#include "pack_check.h"

#include <cstring>
#include <tuple>

namespace kiln::runtime::pack_check {
namespace {

using pack_layout::Header;
using pack_layout::IndexEntry;

std::uint64_t header_checksum(Header h) {
  h.header_checksum = 0;
  return xxh3_of(&h, sizeof h);
}

// [offset, offset + length) inside [begin, end), without overflow.
bool inside(std::uint64_t offset, std::uint64_t length, std::uint64_t begin, std::uint64_t end) {
  return offset >= begin && offset <= end && length <= end - offset;
}

}  // namespace

std::uint64_t xxh3_of(const void* p, std::size_t n) {
  return cache::xxh3_64(std::span<const std::byte>(static_cast<const std::byte*>(p), n));
}

std::uint64_t round_up8(std::uint64_t n) { return (n + 7) / 8 * 8; }

bool all_zero(const std::byte* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != std::byte{0}) return false;
  return true;
}

Result<Header> header(const std::string& name, std::span<const std::byte> start, std::uint64_t length, PackKind kind) {
  if (length < sizeof(Header) || start.size() < sizeof(Header))
    return make_error(name + ": truncated pack (" + std::to_string(length) + " bytes, less than its header)");
  Header h;
  std::memcpy(&h, start.data(), sizeof h);
  if (std::memcmp(h.magic, pack_layout::kMagic, 8) != 0) return make_error(name + ": not a Kiln pack (bad magic)");
  if (h.version != kPackVersion)
    return make_error(name + ": pack format version " + std::to_string(h.version) + " (this build reads version " +
                      std::to_string(kPackVersion) + "); cook the project again");
  if (header_checksum(h) != h.header_checksum) return make_error(name + ": corrupt pack header (checksum mismatch)");
  if (h.kind != static_cast<std::uint32_t>(kind)) {
    const auto other = h.kind >= 1 && h.kind <= 3 ? pack_kind_name(PackKind(h.kind)) : "unknown";
    return make_error(name + ": a " + std::string(other) + " pack where a " + std::string(pack_kind_name(kind)) +
                      " pack was expected");
  }
  // Everything below is checked against the file's length without overflow: a hand-made header
  // with valid checksums must not point outside the file.
  const std::uint64_t after_header = length - sizeof(Header);
  if (h.count > after_header / sizeof(IndexEntry))
    return make_error(name + ": truncated pack (the index of " + std::to_string(h.count) +
                      " entries needs more than the file's " + std::to_string(length) + " bytes)");
  const std::uint64_t strings_begin = sizeof(Header) + h.count * sizeof(IndexEntry);
  if (!inside(strings_begin, h.strings_length, 0, length) || h.identity_length > h.strings_length)
    return make_error(name + ": truncated pack (its names lie past the end of the file)");
  const std::uint64_t strings_end = strings_begin + h.strings_length;
  // The payloads follow the names at the next multiple of 8 and tile the rest of the file.
  if (h.data_offset != round_up8(strings_end) || h.data_offset > length)
    return make_error(name + ": corrupt pack header (data offset " + std::to_string(h.data_offset) + ", expected " +
                      std::to_string(round_up8(strings_end)) + " in a file of " + std::to_string(length) + " bytes)");
  return h;
}

Status metadata(const std::string& name, const Header& h, std::span<const std::byte> meta, std::uint64_t length) {
  const std::byte* base = meta.data();
  const std::uint64_t strings_begin = sizeof(Header) + h.count * sizeof(IndexEntry);
  const std::uint64_t strings_end = strings_begin + h.strings_length;
  if (meta.size() < h.data_offset) return make_error(name + ": truncated pack (its index and names cannot be read)");
  if (!all_zero(base + strings_end, h.data_offset - strings_end))
    return make_error(name + ": corrupt pack (padding after the names is not zero)");
  if (xxh3_of(base + sizeof(Header), strings_end - sizeof(Header)) != h.meta_checksum)
    return make_error(name + ": corrupt pack index or names (checksum mismatch)");
  const std::byte* index = base + sizeof(Header);
  std::uint64_t previous_high = 0, previous_low = 0;
  std::uint64_t next = h.data_offset;  // where the next payload starts: the previous one's end, 8-aligned
  for (std::size_t i = 0; i < h.count; ++i) {
    IndexEntry e;
    std::memcpy(&e, index + i * sizeof(IndexEntry), sizeof e);
    const auto at = [&] { return name + ": index entry " + std::to_string(i); };
    if (e.offset != next || !inside(e.offset, e.length, h.data_offset, length))
      return make_error(at() + ": its payload lies outside the pack's data or leaves bytes outside every entry");
    const std::uint64_t end = e.offset + e.length;
    next = i + 1 < h.count ? round_up8(end) : end;
    if (next > length) return make_error(at() + ": the padding after its payload lies past the end of the file");
    if (!inside(e.name_offset, e.name_length, strings_begin + h.identity_length, strings_end))
      return make_error(at() + ": its name lies outside the pack's names");
    const std::string_view entry_name(reinterpret_cast<const char*>(base + e.name_offset), e.name_length);
    const cache::Hash128 key = pack_key(entry_name);
    if (key.high != e.key_high || key.low != e.key_low)
      return make_error(at() + " ('" + std::string(entry_name) + "'): its key is not the hash of its name");
    if (i > 0 && std::tie(e.key_high, e.key_low) <= std::tie(previous_high, previous_low))
      return make_error(at() + " ('" + std::string(entry_name) + "'): the index is not sorted by key");
    previous_high = e.key_high;
    previous_low = e.key_low;
  }
  if (next != length)
    return make_error(name + ": corrupt pack (" + std::to_string(length - next) + " bytes after the last payload)");
  return {};
}

std::optional<IndexEntry> find(const std::byte* index, std::size_t count, const cache::Hash128& key) {
  std::size_t lo = 0, hi = count;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    IndexEntry e;
    std::memcpy(&e, index + mid * sizeof(IndexEntry), sizeof e);
    if (std::tie(e.key_high, e.key_low) < std::tie(key.high, key.low))
      lo = mid + 1;
    else if (e.key_high == key.high && e.key_low == key.low)
      return e;
    else
      hi = mid;
  }
  return std::nullopt;
}

}  // namespace kiln::runtime::pack_check
