#include "blob_format.h"

#include <algorithm>
#include <cstring>

namespace kiln::cache::blob_format {
namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'B', 'L', 'O', 'B'};

void put_le(std::byte* out, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out[i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint64_t get_le(const std::byte* in, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= std::uint64_t(std::to_integer<unsigned>(in[i])) << (8 * i);
  return v;
}
void put_be(std::byte* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::byte>(v >> (56 - 8 * i));
}
std::uint64_t get_be(const std::byte* in) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | std::to_integer<unsigned>(in[i]);
  return v;
}

}  // namespace

Bytes encode(const BlobKey& key, std::span<const std::byte> payload) {
  Bytes out(kHeaderSize + payload.size());
  std::byte* h = out.data();
  std::memcpy(h, kMagic, 8);
  put_le(h + 8, kFormatVersion, 4);
  put_le(h + 12, kHeaderSize, 4);
  put_be(h + 16, key.hash.high);
  put_be(h + 24, key.hash.low);
  put_le(h + 32, payload.size(), 8);
  put_le(h + 40, xxh3_64(payload), 8);
  put_le(h + 48, 0, 8);
  put_le(h + 56, xxh3_64(std::span<const std::byte>(h, 56)), 8);
  if (!payload.empty()) std::memcpy(h + kHeaderSize, payload.data(), payload.size());
  return out;
}

std::optional<HeaderProblem> check_header(std::span<const std::byte> header, const BlobKey& key,
                                          std::uint64_t file_size) {
  auto corrupt = [](std::string text) { return HeaderProblem{HeaderProblem::kCorrupt, std::move(text)}; };
  if (header.size() < kHeaderSize) return corrupt("truncated header (" + std::to_string(header.size()) + " bytes)");
  const std::byte* h = header.data();
  if (std::memcmp(h, kMagic, 8) != 0) return corrupt("bad magic");
  if (get_le(h + 56, 8) != xxh3_64(header.first(56))) return corrupt("header checksum mismatch");
  if (get_le(h + 8, 4) != kFormatVersion)
    return HeaderProblem{HeaderProblem::kOtherVersion, "format version " + std::to_string(get_le(h + 8, 4))};
  if (get_le(h + 12, 4) != kHeaderSize) return corrupt("bad header size");
  if (get_be(h + 16) != key.hash.high || get_be(h + 24) != key.hash.low) return corrupt("key does not match file name");
  const std::uint64_t length = get_le(h + 32, 8);
  if (file_size == kUnknownSize) {
    if (length > kMaxBlobBytes) return corrupt("payload length " + std::to_string(length) + " over the 1 GiB limit");
    return std::nullopt;
  }
  if (length != file_size - kHeaderSize)
    return corrupt("payload length " + std::to_string(length) + " but " + std::to_string(file_size - kHeaderSize) +
                   " bytes present");
  if (length > kMaxBlobBytes) return corrupt("payload length " + std::to_string(length) + " over the 1 GiB limit");
  return std::nullopt;
}

Result<std::uint64_t> blob_size_from_header(std::span<const std::byte> header, const BlobKey& key) {
  if (auto problem = check_header(header, key, kUnknownSize)) return make_error(problem->text);
  return kHeaderSize + get_le(header.data() + 32, 8);
}

std::optional<std::string> check(std::span<const std::byte> file, const BlobKey& key) {
  if (auto problem = check_header(file.first(std::min(file.size(), kHeaderSize)), key, file.size()))
    return problem->text;
  if (get_le(file.data() + 40, 8) != xxh3_64(file.subspan(kHeaderSize))) return "payload checksum mismatch";
  return std::nullopt;
}

std::optional<BlobKey> key_from_file_name(std::string_view name) {
  if (name.size() != 32 + kExtension.size() || name.substr(32) != kExtension) return std::nullopt;
  std::uint64_t parts[2] = {0, 0};
  for (int i = 0; i < 32; ++i) {
    const char c = name[i];
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else
      return std::nullopt;
    parts[i / 16] = (parts[i / 16] << 4) | std::uint64_t(d);
  }
  return BlobKey{{parts[0], parts[1]}};
}

}  // namespace kiln::cache::blob_format

namespace kiln::cache {

std::optional<std::string> check_blob_file(std::span<const std::byte> file, const BlobKey& key) {
  return blob_format::check(file, key);
}
std::optional<BlobKey> blob_key_from_file_name(std::string_view name) { return blob_format::key_from_file_name(name); }

}  // namespace kiln::cache
