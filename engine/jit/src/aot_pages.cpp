#include "kiln/jit/aot_pages.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "kiln/cache/hash.h"
#include "kiln/jit/bytecode.h"

namespace kiln::jit {
namespace {

struct AotHeader {
  std::uint32_t magic;  // "KAOT"
  std::uint32_t function_offset, alignment, entry_count, code_length;
  std::uint32_t tail_words;  // key words after the page (inlined callees)
};
constexpr std::uint32_t kAotMagic = 0x544F414B;
constexpr std::uint32_t kMaxCodeAlignment = 4096;

}  // namespace

std::string aot_page_id(std::span<const std::uint32_t> page, abi::JitMode mode) {
  const auto hash =
      cache::xxh3_128(std::span<const std::byte>(reinterpret_cast<const std::byte*>(page.data()), page.size() * 4));
  return hash.hex() + "-" + std::to_string(static_cast<std::uint32_t>(mode));
}

std::vector<std::byte> encode_aot_page(std::span<const std::uint32_t> page, const StoredPage& code) {
  AotHeader h{kAotMagic,
              code.function_offset,
              code.alignment,
              static_cast<std::uint32_t>(code.entries.size()),
              static_cast<std::uint32_t>(code.code.size()),
              static_cast<std::uint32_t>(page.size() - kPageWords)};
  const std::size_t key_bytes = page.size() * 4;
  std::vector<std::byte> out(sizeof h + code.entries.size() * 2 + key_bytes + code.code.size());
  std::byte* at = out.data();
  std::memcpy(at, &h, sizeof h), at += sizeof h;
  if (!code.entries.empty()) std::memcpy(at, code.entries.data(), code.entries.size() * 2);
  at += code.entries.size() * 2;
  std::memcpy(at, page.data(), key_bytes), at += key_bytes;
  std::memcpy(at, code.code.data(), code.code.size());
  return out;
}

Result<std::optional<StoredPage>> decode_aot_page(std::span<const std::byte> bytes, std::span<const std::uint32_t> page,
                                                  const std::string& name) {
  AotHeader h;
  if (bytes.size() < sizeof h) return make_error(name + ": truncated compiled page");
  std::memcpy(&h, bytes.data(), sizeof h);
  const std::size_t key_bytes = (kPageWords + std::size_t(h.tail_words)) * 4;
  const std::size_t expected = sizeof h + std::size_t(h.entry_count) * 2 + key_bytes + h.code_length;
  if (h.magic != kAotMagic || h.entry_count > kPageWords || bytes.size() != expected ||
      h.function_offset >= h.code_length)
    return make_error(name + ": damaged compiled page");
  // What the code arena can honour (a power of two up to the smallest page): anything else was
  // not written by a compiler, and is damage, not a page to run interpreted without a word.
  if (!std::has_single_bit(h.alignment) || h.alignment > kMaxCodeAlignment)
    return make_error(name + ": damaged compiled page (code alignment " + std::to_string(h.alignment) + ")");
  const std::byte* at = bytes.data() + sizeof h;
  StoredPage code;
  code.entries.resize(h.entry_count);
  if (h.entry_count) std::memcpy(code.entries.data(), at, std::size_t(h.entry_count) * 2);
  at += std::size_t(h.entry_count) * 2;
  if (key_bytes != page.size() * 4 || std::memcmp(at, page.data(), key_bytes) != 0)
    return std::optional<StoredPage>();  // another page's code, or other callees inlined
  at += key_bytes;
  code.code.assign(reinterpret_cast<const std::uint8_t*>(at),
                   reinterpret_cast<const std::uint8_t*>(at) + h.code_length);
  code.function_offset = h.function_offset;
  code.alignment = h.alignment;
  if (!std::is_sorted(code.entries.begin(), code.entries.end()) ||
      std::any_of(code.entries.begin(), code.entries.end(), [](std::uint16_t e) { return e >= kPageWords; }))
    return make_error(name + ": damaged compiled page (entries)");
  return std::optional<StoredPage>(std::move(code));
}

}  // namespace kiln::jit
