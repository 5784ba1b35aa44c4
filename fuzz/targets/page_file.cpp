// Page code cache files (.jc): framing, checksum and MAC checked as every lookup checks them; and
// what a store writes reads back as written, whatever the code, offsets and entries. The input is the
// store's 32-byte key, then the file; the file written is keyed by a page and a tail of key words.
#include <algorithm>
#include <cstring>
#include <vector>

#include "fuzz_target.h"
#include "kiln/jit/page_file.h"

namespace {

using kiln::jit::PageFileCheck;

void check_contents(const PageFileCheck& check, std::size_t file_size) {
  if (check.verdict != PageFileCheck::Verdict::kValid) {
    KILN_FUZZ_CHECK(!check.problem.empty());
    return;
  }
  const auto& c = check.contents;
  KILN_FUZZ_CHECK(c.page_words.size() >= kiln::jit::kPageWords * 4 && c.page_words.size() % 4 == 0);
  KILN_FUZZ_CHECK(c.code.function_offset < c.code.code.size());
  KILN_FUZZ_CHECK(c.code.code.size() < file_size);
  KILN_FUZZ_CHECK(std::is_sorted(c.code.entries.begin(), c.code.entries.end()));
  KILN_FUZZ_CHECK(c.code.entries.empty() || c.code.entries.back() < kiln::jit::kPageWords);
}

std::uint32_t take32(std::span<const std::uint8_t>& data) {
  std::uint32_t v = 0;
  const std::size_t n = std::min<std::size_t>(4, data.size());
  std::memcpy(&v, data.data(), n);
  data = data.subspan(n);
  return v;
}

}  // namespace

KILN_FUZZ_TARGET(page_file) {
  if (data.size() < 32) return;
  const auto* bytes = reinterpret_cast<const std::byte*>(data.data());
  const std::vector<std::byte> key(bytes, bytes + 32);
  const std::span<const std::byte> file(bytes + 32, data.size() - 32);
  check_contents(kiln::jit::check_page_file(file, key), file.size());

  // The file's bytes as what a store writes: mode, fingerprint, function offset, alignment, entries,
  // tail length, code.
  std::span<const std::uint8_t> rest = data.subspan(32);
  const auto mode = static_cast<kiln::jit::abi::JitMode>(take32(rest) % 2);
  const std::uint64_t fingerprint = take32(rest) * 0x9E3779B97F4A7C15ull;
  kiln::jit::CompiledPage compiled;
  compiled.function_offset = take32(rest) % 4096;
  compiled.alignment = take32(rest);
  const std::uint32_t entry_count = take32(rest) % 64;
  const std::uint32_t tail_words = take32(rest) % 80;  // inlined callees after the page
  for (std::uint32_t i = 0; i < entry_count; ++i)
    compiled.entries.push_back(std::uint16_t(take32(rest) % kiln::jit::kPageWords));
  std::sort(compiled.entries.begin(), compiled.entries.end());
  compiled.entries.erase(std::unique(compiled.entries.begin(), compiled.entries.end()), compiled.entries.end());
  compiled.code.assign(rest.begin(), rest.end());
  std::vector<std::uint32_t> page(kiln::jit::kPageWords + tail_words);
  for (std::size_t i = 0; i < page.size(); ++i) page[i] = std::uint32_t(i * 2654435761u) ^ entry_count;

  const auto written = kiln::jit::encode_page_file(page, mode, fingerprint, compiled, key);
  const auto read = kiln::jit::check_page_file(written, key);
  check_contents(read, written.size());
  if (compiled.function_offset >= compiled.code.size()) {
    KILN_FUZZ_CHECK(read.verdict == PageFileCheck::Verdict::kDamaged);
    return;
  }
  KILN_FUZZ_CHECK(read.verdict == PageFileCheck::Verdict::kValid);
  KILN_FUZZ_CHECK(read.contents.mode == static_cast<std::uint32_t>(mode));
  KILN_FUZZ_CHECK(read.contents.fingerprint_hash == fingerprint);
  KILN_FUZZ_CHECK(read.contents.page_words.size() == page.size() * 4);
  KILN_FUZZ_CHECK(std::memcmp(read.contents.page_words.data(), page.data(), page.size() * 4) == 0);
  KILN_FUZZ_CHECK(read.contents.code.code == compiled.code);
  KILN_FUZZ_CHECK(read.contents.code.function_offset == compiled.function_offset);
  KILN_FUZZ_CHECK(read.contents.code.alignment == compiled.alignment);
  KILN_FUZZ_CHECK(read.contents.code.entries == compiled.entries);
  // Another key: the same bytes are refused as forged, never served.
  std::vector<std::byte> other_key = key;
  other_key[0] ^= std::byte{1};
  KILN_FUZZ_CHECK(kiln::jit::check_page_file(written, other_key).verdict == PageFileCheck::Verdict::kForged);
}
