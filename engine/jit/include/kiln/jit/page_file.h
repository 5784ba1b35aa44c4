#pragma once
// The page store's file (.jc): a 64-byte header (magic, version, mode, fingerprint hash, the MAC's
// nonce, code length, function offset, alignment, key words after the page, a reserved zero word) and
// two bitmaps of the page's words (the entries the code serves, the words it depends on), the page's
// key words (its 1024 words and the inlined callees: inlining.h), the code, and a UMAC-128 (RFC 4418)
// of everything before it under the store's per-user key and a random nonce of the file's own. (UMAC:
// a keyed MAC a few times faster than HMAC-SHA256 with SHA extensions, and a page's load checks one.)
//
// Reading checks the framing (a torn file), then the MAC (a file this user's Kiln did not write, or
// one changed since). The file has no checksum of its own: it is the payload of a cache store entry,
// whose checksum has already told a damaged entry from a forged one. What the file is for
// (fingerprint, mode, page bytes) is the caller's to compare: a valid file in the wrong place is not
// damaged, only useless.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kiln/jit/bytecode.h"
#include "kiln/jit/jit_abi.h"
#include "kiln/jit/page_compiler.h"
#include "kiln/jit/page_store.h"

namespace kiln::jit {

// Everything a file claims, once framing and MAC hold.
struct PageFileContents {
  std::uint32_t mode = 0;  // abi::JitMode as stored; the caller compares it
  std::uint64_t fingerprint_hash = 0;
  std::span<const std::byte> page_words;  // the key words (at least kPageWords) inside the checked file
  StoredPage code;                        // entries sorted and below kPageWords
};

struct PageFileCheck {
  enum class Verdict { kValid, kDamaged, kForged };
  Verdict verdict = Verdict::kDamaged;
  std::string problem;        // when not valid: "truncated: ...", "not a page file", "MAC mismatch", ...
  PageFileContents contents;  // when valid
};

std::vector<std::byte> encode_page_file(std::span<const std::uint32_t> page, abi::JitMode mode,
                                        std::uint64_t fingerprint_hash, const CompiledPage& compiled,
                                        std::span<const std::byte> key);

// `contents.page_words` points into `bytes`: keep them alive together.
PageFileCheck check_page_file(std::span<const std::byte> bytes, std::span<const std::byte> key);

// The entries a file's header claims, unchecked: enough to decide that a newer variant covers it.
// Empty when `bytes` is shorter than a header.
std::vector<std::uint16_t> page_file_entries_unchecked(std::span<const std::byte> bytes);

inline constexpr std::size_t kPageFileHeaderBytes = 64 + 2 * (kPageWords / 8);

// The largest file a store reads: the header, the key words and 64 MiB of code (a page compiles to
// tens of KiB).
inline constexpr std::uint64_t kMaxPageFileBytes = (64ull << 20) + (1ull << 20);

}  // namespace kiln::jit
