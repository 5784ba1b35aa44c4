#include "kiln/jit/page_file.h"

#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <bit>
#include <cstddef>
#include <cstring>

#include "kiln/cache/hash.h"
#include "kiln/jit/bytecode.h"

namespace kiln::jit {
namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'J', 'C', 0, 1};
constexpr std::uint32_t kVersion = 3;
constexpr std::size_t kBitmapBytes = kPageWords / 8;
constexpr std::size_t kMacBytes = 16;
constexpr std::size_t kPageBytes = kPageWords * 4;

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t mode;
  std::uint64_t fingerprint;
  std::uint8_t nonce[16];  // the MAC's: random, one per file
  std::uint32_t code_length;
  std::uint32_t function_offset;
  std::uint32_t alignment;
  std::uint32_t tail_words;  // key words after the page (inlined callees)
  std::uint64_t reserved;    // zero
  std::uint8_t entries[kBitmapBytes];
  std::uint8_t used[kBitmapBytes];
};
static_assert(sizeof(Header) == kPageFileHeaderBytes);

std::vector<std::uint16_t> entries_of(const std::uint8_t* bitmap) {
  std::vector<std::uint16_t> out;
  for (std::size_t byte = 0; byte < kBitmapBytes; ++byte)
    for (unsigned bits = bitmap[byte]; bits != 0; bits &= bits - 1)
      out.push_back(std::uint16_t(byte * 8 + unsigned(std::countr_zero(bits))));
  return out;
}

// The MAC's key: the first 16 bytes of the store's key (all of it random).
std::span<const std::byte, cache::kUmacKeyBytes> mac_key(std::span<const std::byte> key) {
  static constexpr std::byte kNoKey[cache::kUmacKeyBytes] = {};
  if (key.size() < cache::kUmacKeyBytes) return kNoKey;  // never a store's key: its MACs match no store's
  return key.first<cache::kUmacKeyBytes>();
}

// A nonce never used before under the key: the kernel's random bytes, or (should it refuse them)
// the clock, the process and a counter.
void fill_nonce(std::uint8_t (&nonce)[16]) {
  if (::getrandom(nonce, sizeof nonce, GRND_NONBLOCK) == ssize_t(sizeof nonce)) return;
  static std::atomic<std::uint64_t> counter{0};
  const std::uint64_t words[2] = {std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()),
                                  (std::uint64_t(::getpid()) << 32) ^ counter.fetch_add(1, std::memory_order_relaxed)};
  std::memcpy(nonce, words, sizeof nonce);
}

PageFileCheck damaged(std::string problem) {
  PageFileCheck check;
  check.verdict = PageFileCheck::Verdict::kDamaged;
  check.problem = std::move(problem);
  return check;
}

}  // namespace

std::vector<std::byte> encode_page_file(std::span<const std::uint32_t> page, abi::JitMode mode,
                                        std::uint64_t fingerprint_hash, const CompiledPage& compiled,
                                        std::span<const std::byte> key) {
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kVersion;
  h.mode = static_cast<std::uint32_t>(mode);
  h.fingerprint = fingerprint_hash;
  const std::size_t key_bytes = page.size() * 4;
  fill_nonce(h.nonce);
  h.code_length = static_cast<std::uint32_t>(compiled.code.size());
  h.function_offset = compiled.function_offset;
  h.alignment = compiled.alignment;
  h.tail_words = static_cast<std::uint32_t>(page.size() - kPageWords);
  for (std::uint16_t e : compiled.entries) h.entries[e / 8] |= std::uint8_t(1u << (e % 8));
  if (!compiled.used_words.empty())
    std::memcpy(h.used, compiled.used_words.data(), std::min(kBitmapBytes, compiled.used_words.size()));
  std::vector<std::byte> bytes(sizeof h + key_bytes + compiled.code.size() + kMacBytes);
  std::memcpy(bytes.data(), &h, sizeof h);
  std::memcpy(bytes.data() + sizeof h, page.data(), key_bytes);
  if (!compiled.code.empty())
    std::memcpy(bytes.data() + sizeof h + key_bytes, compiled.code.data(), compiled.code.size());
  const std::span<const std::byte> signed_part(bytes.data(), bytes.size() - kMacBytes);
  const auto mac = cache::umac128(mac_key(key), std::as_bytes(std::span(h.nonce)), signed_part);
  std::memcpy(bytes.data() + signed_part.size(), mac.data(), kMacBytes);
  return bytes;
}

PageFileCheck check_page_file(std::span<const std::byte> bytes, std::span<const std::byte> key) {
  if (bytes.size() < sizeof(Header) + kPageBytes + kMacBytes)
    return damaged("truncated: " + std::to_string(bytes.size()) + " bytes");
  if (bytes.size() > kMaxPageFileBytes) return damaged("too large: " + std::to_string(bytes.size()) + " bytes");
  Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, 8) != 0) return damaged("not a page file");
  if (h.version != kVersion)
    return damaged("version " + std::to_string(h.version) + ", expected " + std::to_string(kVersion));
  const std::uint64_t key_bytes = kPageBytes + std::uint64_t(h.tail_words) * 4;
  if (bytes.size() != sizeof h + key_bytes + std::uint64_t(h.code_length) + kMacBytes)
    return damaged("size " + std::to_string(bytes.size()) + " does not match its key and code lengths " +
                   std::to_string(key_bytes) + " + " + std::to_string(h.code_length));
  if (h.function_offset >= h.code_length) return damaged("function offset outside the code");
  if (h.reserved != 0) return damaged("reserved header field is not zero");
  const std::span<const std::byte> signed_part = bytes.first(bytes.size() - kMacBytes);
  const auto mac = cache::umac128(mac_key(key), std::as_bytes(std::span(h.nonce)), signed_part);
  if (std::memcmp(mac.data(), bytes.data() + signed_part.size(), kMacBytes) != 0) {
    PageFileCheck forged;
    forged.verdict = PageFileCheck::Verdict::kForged;
    forged.problem = "MAC mismatch";
    return forged;
  }
  PageFileCheck check;
  check.verdict = PageFileCheck::Verdict::kValid;
  PageFileContents& c = check.contents;
  c.mode = h.mode;
  c.fingerprint_hash = h.fingerprint;
  c.page_words = bytes.subspan(sizeof h, key_bytes);
  const auto* code = reinterpret_cast<const std::uint8_t*>(bytes.data() + sizeof h + key_bytes);
  c.code.code.assign(code, code + h.code_length);
  c.code.function_offset = h.function_offset;
  c.code.alignment = h.alignment;
  c.code.entries = entries_of(h.entries);
  return check;
}

std::vector<std::uint16_t> page_file_entries_unchecked(std::span<const std::byte> bytes) {
  if (bytes.size() < sizeof(Header)) return {};
  Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  return entries_of(h.entries);
}

}  // namespace kiln::jit
