#include "kiln/runtime/pack.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <tuple>

#include "kiln/core/atomic_output.h"
#include "kiln/core/input_limits.h"
#include "pack_check.h"
#include "pack_layout.h"
#include "payload_spill.h"

namespace kiln::runtime {
namespace {

using pack_layout::Header;
using pack_layout::IndexEntry;
using pack_layout::kMagic;

using pack_check::all_zero;
using pack_check::round_up8;
using pack_check::xxh3_of;

std::uint64_t header_checksum(Header h) {
  h.header_checksum = 0;
  return xxh3_of(&h, sizeof h);
}

}  // namespace

std::string_view pack_kind_name(PackKind kind) {
  switch (kind) {
    case PackKind::kShaders: return "shaders";
    case PackKind::kScripts: return "scripts";
    case PackKind::kTextures: return "textures";
  }
  return "unknown";
}

cache::Hash128 pack_key(std::string_view name) { return cache::xxh3_128(name); }

// Everything of a pack but its payloads: the header, the index and the names, and where each
// payload goes.
struct PackWriter::Layout {
  std::vector<std::byte> metadata;     // the file's first data_offset bytes
  std::vector<const Entry*> sorted;    // in index order
  std::vector<std::uint64_t> offsets;  // each payload's, in index order
  std::uint64_t checksum = 0;          // the header's
};

PackWriter::PackWriter(PackKind kind, std::string identity)
    : kind_(kind), identity_(std::move(identity)), spill_(std::make_unique<PayloadSpill>()) {}
PackWriter::~PackWriter() = default;
PackWriter::PackWriter(PackWriter&&) noexcept = default;
PackWriter& PackWriter::operator=(PackWriter&&) noexcept = default;

void PackWriter::add(std::string name, std::span<const std::byte> payload) {
  const cache::Hash128 key = pack_key(name);
  const std::uint64_t at = spill_->append(payload);
  entries_.push_back({std::move(name), key, at, payload.size(), xxh3_of(payload.data(), payload.size())});
}

Result<PackWriter::Layout> PackWriter::layout(const std::string& where) const {
  if (!spill_->error().empty()) return make_error(where + ": " + spill_->error());
  Layout out;
  for (const auto& e : entries_) out.sorted.push_back(&e);
  std::sort(out.sorted.begin(), out.sorted.end(), [](const Entry* a, const Entry* b) {
    return std::tie(a->key.high, a->key.low) < std::tie(b->key.high, b->key.low);
  });
  for (std::size_t i = 1; i < out.sorted.size(); ++i)
    if (out.sorted[i]->key == out.sorted[i - 1]->key)
      return make_error(where + ": entry '" + out.sorted[i]->name + "' added twice");

  const std::size_t index_end = sizeof(Header) + out.sorted.size() * sizeof(IndexEntry);
  std::vector<std::byte>& meta = out.metadata;
  meta.resize(index_end);
  auto append = [&](const void* p, std::size_t n) {
    const std::size_t at = meta.size();
    meta.insert(meta.end(), static_cast<const std::byte*>(p), static_cast<const std::byte*>(p) + n);
    return at;
  };
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kPackVersion;
  h.kind = static_cast<std::uint32_t>(kind_);
  h.count = out.sorted.size();
  append(identity_.data(), identity_.size());
  h.identity_length = identity_.size();
  std::vector<IndexEntry> index(out.sorted.size());
  for (std::size_t i = 0; i < out.sorted.size(); ++i) {
    const std::string& name = out.sorted[i]->name;
    if (meta.size() + name.size() > UINT32_MAX) return make_error(where + ": too many entry names for one pack");
    index[i].name_offset = static_cast<std::uint32_t>(append(name.data(), name.size()));
    index[i].name_length = static_cast<std::uint32_t>(name.size());
  }
  h.strings_length = meta.size() - index_end;
  meta.resize(round_up8(meta.size()));
  h.data_offset = meta.size();
  std::uint64_t next = h.data_offset;
  for (std::size_t i = 0; i < out.sorted.size(); ++i) {
    const Entry& entry = *out.sorted[i];
    IndexEntry& e = index[i];
    e.key_high = entry.key.high;
    e.key_low = entry.key.low;
    e.offset = round_up8(next);
    e.length = entry.length;
    e.checksum = entry.checksum;
    out.offsets.push_back(e.offset);
    next = e.offset + e.length;
  }
  if (!index.empty()) std::memcpy(meta.data() + sizeof(Header), index.data(), index.size() * sizeof(IndexEntry));
  h.meta_checksum = xxh3_of(meta.data() + sizeof(Header), index_end - sizeof(Header) + h.strings_length);
  h.header_checksum = header_checksum(h);
  std::memcpy(meta.data(), &h, sizeof h);
  out.checksum = h.header_checksum;
  return out;
}

Status PackWriter::stream(const std::string& where, const Sink& sink) const {
  auto laid = layout(where);
  if (!laid) return laid.error();
  KILN_TRY(sink(laid->metadata));
  std::uint64_t written = laid->metadata.size();
  static constexpr std::byte kZeros[8] = {};
  Status sunk;  // the sink's first failure ends the stream
  for (std::size_t i = 0; i < laid->sorted.size(); ++i) {
    const Entry& e = *laid->sorted[i];
    if (laid->offsets[i] > written) KILN_TRY(sink(std::span<const std::byte>(kZeros, laid->offsets[i] - written)));
    KILN_TRY(spill_->read(e.at, e.length, [&](std::span<const std::byte> piece) {
      if (sunk) sunk = sink(piece);
    }));
    KILN_TRY(sunk);
    written = laid->offsets[i] + e.length;
  }
  return {};
}

Result<std::vector<std::byte>> PackWriter::encode(const std::string& where) const {
  std::vector<std::byte> out;
  KILN_TRY(stream(where, [&](std::span<const std::byte> piece) -> Status {
    out.insert(out.end(), piece.begin(), piece.end());
    return {};
  }));
  return out;
}

Result<std::uint64_t> PackWriter::checksum(const std::string& where) const {
  auto laid = layout(where);
  if (!laid) return laid.error();
  return laid->checksum;
}

Status PackWriter::write(const std::filesystem::path& path) const {
  return write_file_atomically(path, [&](const ByteSink& sink) { return stream(path.string(), sink); });
}

std::uint64_t pack_checksum(std::span<const std::byte> bytes) {
  if (bytes.size() < sizeof(Header)) return 0;
  Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  return h.header_checksum;
}

Pack::~Pack() = default;

Result<std::unique_ptr<Pack>> Pack::open(const std::filesystem::path& path, PackKind kind,
                                         const BytesCheck& check_bytes) {
  const std::string name = path.string();
  // Read whole, through the one input check, into memory this reader owns, never mapped: a pack
  // truncated or rewritten in place while the game runs must not end it with SIGBUS. One that
  // shrinks while it is read fails the length checks below; one that grows is refused there.
  auto read = read_input_bytes(path, std::numeric_limits<std::uint64_t>::max(), "pack");
  if (!read) return read.error();
  std::unique_ptr<Pack> pack(new Pack());
  pack->bytes_ = std::move(*read);
  if (check_bytes) KILN_TRY(check_bytes(pack->bytes_.bytes()));
  const std::span<const std::byte> bytes = pack->bytes_.bytes();
  auto h = pack_check::header(name, bytes, bytes.size(), kind);
  if (!h) return h.error();
  KILN_TRY(pack_check::metadata(name, *h, bytes, bytes.size()));
  pack->path_ = path;
  pack->base_ = pack->bytes_.data();
  pack->length_ = bytes.size();
  pack->index_ = pack->base_ + sizeof(Header);
  pack->count_ = h->count;
  pack->checksum_ = h->header_checksum;
  const std::uint64_t strings_begin = sizeof(Header) + h->count * sizeof(IndexEntry);
  pack->identity_.assign(reinterpret_cast<const char*>(pack->base_ + strings_begin), h->identity_length);
  // Every byte of a pack is checked: the padding between payloads is zero.
  for (std::size_t i = 0; i + 1 < h->count; ++i) {
    IndexEntry e;
    std::memcpy(&e, pack->index_ + i * sizeof(IndexEntry), sizeof e);
    const std::uint64_t end = e.offset + e.length;
    if (!all_zero(pack->base_ + end, round_up8(end) - end))
      return make_error(name + ": index entry " + std::to_string(i) + ": the padding after its payload is not zero");
  }
  return pack;
}

Result<std::optional<std::span<const std::byte>>> Pack::find(std::string_view name) const {
  const cache::Hash128 key = pack_key(name);
  const auto e = pack_check::find(index_, count_, key);
  if (!e) return std::optional<std::span<const std::byte>>();
  const std::byte* payload = base_ + e->offset;
  if (xxh3_of(payload, e->length) != e->checksum)
    return make_error(path_.string() + ": entry '" + std::string(name) + "' (" + key.hex().substr(0, 12) +
                      ") is corrupt (checksum mismatch)");
  return std::optional<std::span<const std::byte>>(std::span<const std::byte>(payload, e->length));
}

std::vector<std::string> Pack::names() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count_; ++i) {
    IndexEntry e;
    std::memcpy(&e, index_ + i * sizeof(IndexEntry), sizeof e);
    out.emplace_back(reinterpret_cast<const char*>(base_ + e.name_offset), e.name_length);
  }
  return out;
}

}  // namespace kiln::runtime
