#include "kiln/runtime/pack.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "kiln/core/atomic_output.h"

namespace kiln::runtime {
namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'P', 'A', 'C', 'K'};

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t kind;
  std::uint64_t count;
  std::uint64_t index_offset;
  std::uint64_t identity_offset, identity_length;
  std::uint64_t index_checksum;
  std::uint64_t header_checksum;  // XXH3-64 of the header with this field zero
};
static_assert(sizeof(Header) == 64);

struct IndexEntry {
  std::uint64_t key_high, key_low;
  std::uint64_t offset, length;
  std::uint64_t checksum;
  std::uint32_t name_offset, name_length;
};
static_assert(sizeof(IndexEntry) == 48);

std::uint64_t checksum(const void* p, std::size_t n) {
  return cache::xxh3_64(std::span<const std::byte>(static_cast<const std::byte*>(p), n));
}

const char* kind_name(std::uint32_t kind) {
  switch (kind) {
    case 1: return "shaders";
    case 2: return "scripts";
    case 3: return "textures";
  }
  return "unknown";
}

}  // namespace

cache::Hash128 pack_key(std::string_view name) { return cache::xxh3_128(name); }

PackWriter::PackWriter(PackKind kind, std::string identity) : kind_(kind), identity_(std::move(identity)) {}

void PackWriter::add(std::string name, std::vector<std::byte> payload) {
  entries_.emplace_back(std::move(name), std::move(payload));
}

Status PackWriter::write(const std::filesystem::path& path) const {
  struct Sorted {
    cache::Hash128 key;
    const std::pair<std::string, std::vector<std::byte>>* entry;
  };
  std::vector<Sorted> sorted;
  for (const auto& e : entries_) sorted.push_back({pack_key(e.first), &e});
  std::sort(sorted.begin(), sorted.end(), [](const Sorted& a, const Sorted& b) {
    return std::tie(a.key.high, a.key.low) < std::tie(b.key.high, b.key.low);
  });
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].key.high == sorted[i - 1].key.high && sorted[i].key.low == sorted[i - 1].key.low)
      return make_error(path.string() + ": entry '" + sorted[i].entry->first + "' added twice");

  std::vector<std::byte> out(sizeof(Header) + sorted.size() * sizeof(IndexEntry));
  auto append = [&](const void* p, std::size_t n) {
    const std::size_t at = out.size();
    out.insert(out.end(), static_cast<const std::byte*>(p), static_cast<const std::byte*>(p) + n);
    return at;
  };
  auto align8 = [&] { out.resize((out.size() + 7) / 8 * 8); };
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kPackVersion;
  h.kind = static_cast<std::uint32_t>(kind_);
  h.count = sorted.size();
  h.index_offset = sizeof(Header);
  h.identity_offset = append(identity_.data(), identity_.size());
  h.identity_length = identity_.size();
  std::vector<IndexEntry> index(sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const auto& [name, payload] = *sorted[i].entry;
    IndexEntry& e = index[i];
    e.key_high = sorted[i].key.high;
    e.key_low = sorted[i].key.low;
    e.name_offset = static_cast<std::uint32_t>(append(name.data(), name.size()));
    e.name_length = static_cast<std::uint32_t>(name.size());
    align8();
    e.offset = append(payload.data(), payload.size());
    e.length = payload.size();
    e.checksum = checksum(payload.data(), payload.size());
  }
  if (!index.empty()) std::memcpy(out.data() + sizeof(Header), index.data(), index.size() * sizeof(IndexEntry));
  h.index_checksum = checksum(index.data(), index.size() * sizeof(IndexEntry));
  h.header_checksum = checksum(&h, sizeof h);
  std::memcpy(out.data(), &h, sizeof h);
  return write_file_atomically(path, out);
}

Pack::~Pack() {
  if (base_) ::munmap(const_cast<std::byte*>(base_), length_);
}

Result<std::unique_ptr<Pack>> Pack::open(const std::filesystem::path& path, PackKind kind) {
  const std::string name = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(name + ": cannot open the pack: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return make_error(name + ": cannot stat the pack");
  }
  const auto length = static_cast<std::size_t>(st.st_size);
  if (length < sizeof(Header)) {
    ::close(fd);
    return make_error(name + ": truncated pack (" + std::to_string(length) + " bytes, less than its header)");
  }
  void* mem = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mem == MAP_FAILED) return make_error(name + ": cannot map the pack");
  std::unique_ptr<Pack> pack(new Pack());
  pack->path_ = path;
  pack->base_ = static_cast<const std::byte*>(mem);
  pack->length_ = length;

  Header h;
  std::memcpy(&h, pack->base_, sizeof h);
  if (std::memcmp(h.magic, kMagic, 8) != 0) return make_error(name + ": not a Kiln pack (bad magic)");
  if (h.version != kPackVersion)
    return make_error(name + ": pack format version " + std::to_string(h.version) + " (this build reads version " +
                      std::to_string(kPackVersion) + "); cook the project again");
  Header zeroed = h;
  zeroed.header_checksum = 0;
  if (checksum(&zeroed, sizeof zeroed) != h.header_checksum) return make_error(name + ": corrupt pack header (checksum mismatch)");
  if (h.kind != static_cast<std::uint32_t>(kind))
    return make_error(name + ": a " + std::string(kind_name(h.kind)) + " pack where a " +
                      kind_name(static_cast<std::uint32_t>(kind)) + " pack was expected");
  const std::uint64_t index_end = h.index_offset + h.count * sizeof(IndexEntry);
  if (h.count > length / sizeof(IndexEntry) || index_end > length || h.identity_offset + h.identity_length > length)
    return make_error(name + ": truncated pack (the index needs " + std::to_string(index_end) + " bytes, the file has " +
                      std::to_string(length) + ")");
  pack->index_ = pack->base_ + h.index_offset;
  if (checksum(pack->index_, h.count * sizeof(IndexEntry)) != h.index_checksum)
    return make_error(name + ": corrupt pack index (checksum mismatch)");
  pack->count_ = h.count;
  pack->identity_.assign(reinterpret_cast<const char*>(pack->base_ + h.identity_offset), h.identity_length);
  for (std::size_t i = 0; i < h.count; ++i) {
    IndexEntry e;
    std::memcpy(&e, pack->index_ + i * sizeof(IndexEntry), sizeof e);
    if (e.offset + e.length > length || e.offset + e.length < e.offset ||
        std::uint64_t(e.name_offset) + e.name_length > length)
      return make_error(name + ": truncated pack (entry " + std::to_string(i) + " lies past the end of the file)");
  }
  return pack;
}

Result<std::optional<std::span<const std::byte>>> Pack::find(std::string_view name) const {
  const cache::Hash128 key = pack_key(name);
  std::size_t lo = 0, hi = count_;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    IndexEntry e;
    std::memcpy(&e, index_ + mid * sizeof(IndexEntry), sizeof e);
    if (std::tie(e.key_high, e.key_low) < std::tie(key.high, key.low)) {
      lo = mid + 1;
    } else if (e.key_high == key.high && e.key_low == key.low) {
      const std::byte* payload = base_ + e.offset;
      if (checksum(payload, e.length) != e.checksum)
        return make_error(path_.string() + ": entry '" + std::string(name) + "' (" + key.hex().substr(0, 12) +
                          ") is corrupt (checksum mismatch)");
      return std::optional<std::span<const std::byte>>(std::span<const std::byte>(payload, e.length));
    } else {
      hi = mid;
    }
  }
  return std::optional<std::span<const std::byte>>();
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
