#pragma once
// The interface of a page compiler (the LLVM backend lives in engine/jitc, so that the player can
// run cached code without linking LLVM). A compiler turns one page and an entry set into a blob of
// position-independent machine code laid out as it runs.
//
// Thread-safety: compile() may be called from several threads at once.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/jit/bytecode.h"
#include "kiln/jit/jit_abi.h"

namespace kiln::jit {

struct PageRequest {
  std::span<const std::uint32_t> words;  // the page's key words: its kPageWords words, then its inlined callees
  std::vector<std::uint16_t> entries;    // sorted, distinct
  abi::JitMode mode = abi::JitMode::kChecked;
};

struct CompiledPage {
  std::vector<std::uint8_t> code;     // text and read-only data, relocations resolved
  std::uint32_t function_offset = 0;  // where abi::PageFunction starts in `code`
  std::uint32_t alignment = 16;
  std::vector<std::uint16_t> entries;    // what the code serves (the request's instruction starts)
  std::vector<std::uint8_t> used_words;  // bitmap of kPageWords bits: the words the code depends on
  // False when the code needed something outside itself (a libcall, an absolute address): it runs
  // in this process but is never stored.
  bool cacheable = true;
  std::string not_cacheable_reason;
};

class PageCompiler {
 public:
  virtual ~PageCompiler() = default;
  virtual Result<CompiledPage> compile(const PageRequest& request) = 0;
  // Everything besides the page, entries and mode that the code depends on: codegen settings,
  // LLVM version, host CPU name and features. Part of the cache key.
  virtual std::string fingerprint() const = 0;
};

}  // namespace kiln::jit
