#pragma once
// Executable memory for installed pages. Chunks are mapped once (read+write; their pages are
// faulted in as code is copied there, so a run that installs a few pages touches only those); a
// page's code is copied into the next free pages of the current chunk, which are then made
// read+execute. Memory is never writable and executable at once, and a page costs one mprotect
// instead of a mapping of its own (whose set-up and unmapping cost more than the copy).
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
  CodeArena() = default;
  CodeArena(const CodeArena&) = delete;
  CodeArena& operator=(const CodeArena&) = delete;
  ~CodeArena();

  // Where `code` now is, read+execute.
  Result<const std::uint8_t*> install(std::span<const std::uint8_t> code);

 private:
  struct Chunk {
    std::uint8_t* base;
    std::size_t size;
    std::size_t used;
  };
  std::mutex mu_;
  std::vector<Chunk> chunks_;
};

}  // namespace kiln::jit
