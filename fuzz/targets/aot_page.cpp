// Compiled pages in a scripts pack (page: entries): header, entries, the page's key words (the page and
// its inlined callees) and the code, decoded as the player decodes them. The key asked for is the one
// the input holds, so that decoding gets past the compare; a valid page encodes back to the same
// bytes. The key's callee records are parsed as the compiler parses them.
#include <algorithm>
#include <cstring>
#include <vector>

#include "fuzz_target.h"
#include "kiln/jit/aot_pages.h"
#include "kiln/jit/bytecode.h"
#include "kiln/jit/inlining.h"

KILN_FUZZ_TARGET(aot_page) {
  constexpr std::size_t kHeaderBytes = 24;
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data.data()), data.size());
  std::uint32_t entry_count = 0, tail_words = 0;
  if (bytes.size() >= kHeaderBytes) {
    std::memcpy(&entry_count, bytes.data() + 12, 4);
    std::memcpy(&tail_words, bytes.data() + 20, 4);
  }
  const std::size_t page_at = kHeaderBytes + std::size_t(entry_count) * 2;
  const std::size_t key_bytes = (kiln::jit::kPageWords + std::size_t(tail_words)) * 4;
  std::vector<std::uint32_t> page(kiln::jit::kPageWords);
  if (entry_count <= kiln::jit::kPageWords && bytes.size() >= page_at + key_bytes) {
    page.resize(key_bytes / 4);
    std::memcpy(page.data(), bytes.data() + page_at, key_bytes);
  }
  if (const auto callees = kiln::jit::inline_callees(page); callees)
    for (const auto& callee : *callees) KILN_FUZZ_CHECK(kiln::jit::inlinable(callee.code));

  const auto decoded = kiln::jit::decode_aot_page(bytes, page, "pack.kpk: page:x");
  if (!decoded) {
    KILN_FUZZ_CHECK_ERROR(decoded.error(), "pack.kpk: page:x");
    return;
  }
  if (!decoded->has_value()) return;  // another page's code
  const kiln::jit::StoredPage& code = **decoded;
  KILN_FUZZ_CHECK(code.function_offset < code.code.size());
  KILN_FUZZ_CHECK(std::is_sorted(code.entries.begin(), code.entries.end()));
  KILN_FUZZ_CHECK(code.entries.empty() || code.entries.back() < kiln::jit::kPageWords);
  KILN_FUZZ_CHECK(kiln::jit::encode_aot_page(page, code) == std::vector<std::byte>(bytes.begin(), bytes.end()));
}
