#pragma once
// Executable memory for installed pages.
//
// Packed (the default where the system allows it): each chunk is one block of shared memory mapped
// twice, read+write at an address only the arena knows and read+execute where the code runs. Code is
// copied through the first view and packed at its alignment one after the other, so a page of code
// costs a copy and a share of a first touch, with no system call: a 1.5 KiB page no longer holds a
// 4 KiB page of its own, and loading a cached page no longer changes a mapping. No address is ever
// writable and executable at once. A child process made by fork() shares the chunks with its parent,
// so it packs its own code into new ones.
//
// Per page (the fallback when shared memory cannot be mapped executable, e.g. under a policy that
// forbids it): chunks are private memory; a page's code is copied into the next free 4 KiB pages,
// which are then made read+execute with one mprotect.
//
// Thread-safety: install() from any thread (one mutex); the code stays until the arena is destroyed.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::jit {

class CodeArena {
 public:
  enum class Layout { kPacked, kPerPage };

  // kPacked falls back to kPerPage, for good, when its first chunk cannot be mapped.
  explicit CodeArena(Layout layout = Layout::kPacked) : layout_(layout) {}
  CodeArena(const CodeArena&) = delete;
  CodeArena& operator=(const CodeArena&) = delete;
  ~CodeArena();

  // Where `code` now is, read+execute, at a multiple of `alignment` (a power of two up to 4096;
  // at least 16 is used).
  Result<const std::uint8_t*> install(std::span<const std::uint8_t> code, std::uint32_t alignment = 16);

  Layout layout() const;

 private:
  struct Chunk {
    std::uint8_t* writable;    // the read+write view (packed) or the chunk itself (per page)
    std::uint8_t* executable;  // the read+execute view (packed) or the chunk itself (per page)
    std::size_t size;
    std::size_t used;
  };
  bool add_packed_chunk(std::size_t bytes);
  bool add_private_chunk(std::size_t bytes);

  mutable std::mutex mu_;  // guards everything below
  Layout layout_;
  unsigned fork_generation_ = 0;  // of the process that filled the chunks
  std::vector<Chunk> chunks_;
};

}  // namespace kiln::jit
