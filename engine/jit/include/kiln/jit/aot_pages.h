#pragma once
// Compiled pages shipped inside the scripts pack (ahead of time): the cook stores each
// page's code with the page's key words (its bytes and its inlined callees: inlining.h); the player serves them to its JitRuntime through an
// AotSource. A shipped pack's pages are as trusted as the player binary itself: integrity comes from
// the pack's checksums, and every hit is still compared with the page's bytes in full.
//
// Thread-safety: the functions are pure; an AotSource's find() may be called from any thread.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/jit/jit_abi.h"
#include "kiln/jit/page_store.h"

namespace kiln::jit {

// "<xxh3-128 of the page's key words>-<mode>": the id of a page's entry in the scripts pack. `page` is
// the page's key words here and below.
std::string aot_page_id(std::span<const std::uint32_t> page, abi::JitMode mode);
std::vector<std::byte> encode_aot_page(std::span<const std::uint32_t> page, const StoredPage& code);
// The code of `page` from an entry's bytes; nullopt when the entry holds another page's code (a
// collision: never served). Errors name `name` for a damaged entry.
Result<std::optional<StoredPage>> decode_aot_page(std::span<const std::byte> bytes, std::span<const std::uint32_t> page,
                                                  const std::string& name);

class AotSource {
 public:
  virtual ~AotSource() = default;
  // Code for `page` covering `entries` in `mode`, if shipped.
  virtual std::optional<StoredPage> find(std::span<const std::uint32_t> page, std::span<const std::uint16_t> entries,
                                         abi::JitMode mode) = 0;
};

}  // namespace kiln::jit
