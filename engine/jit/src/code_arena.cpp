#include "code_arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace kiln::jit {
namespace {

constexpr std::size_t kChunkBytes = 256 * 1024;

std::size_t os_page() {
  static const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
  return page;
}

}  // namespace

CodeArena::~CodeArena() {
  for (const Chunk& chunk : chunks_) ::munmap(chunk.base, chunk.size);
}

Result<const std::uint8_t*> CodeArena::install(std::span<const std::uint8_t> code) {
  const std::size_t page = os_page();
  const std::size_t size = (std::max<std::size_t>(code.size(), 1) + page - 1) / page * page;
  std::lock_guard lock(mu_);
  if (chunks_.empty() || chunks_.back().size - chunks_.back().used < size) {
    const std::size_t bytes = std::max(kChunkBytes, size);
    void* mem = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return make_error("cannot map memory for compiled code");
    chunks_.push_back({static_cast<std::uint8_t*>(mem), bytes, 0});
  }
  Chunk& chunk = chunks_.back();
  std::uint8_t* at = chunk.base + chunk.used;
  chunk.used += size;  // taken whatever happens: a range that failed to change stays unused
  std::memcpy(at, code.data(), code.size());
  if (::mprotect(at, size, PROT_READ | PROT_EXEC) != 0) return make_error("cannot make compiled code executable");
  return static_cast<const std::uint8_t*>(at);
}

}  // namespace kiln::jit
