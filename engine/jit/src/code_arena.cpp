#include "kiln/jit/code_arena.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <string>

namespace kiln::jit {
namespace {

constexpr std::size_t kChunkBytes = 256 * 1024;
constexpr std::uint32_t kMinAlignment = 16;
// memfd_create's flag for a file that may be mapped executable: required where the system makes
// memory files non-executable by default (vm.memfd_noexec), refused (EINVAL) by kernels before 6.3.
constexpr unsigned kMemfdExec = 0x10;

std::size_t os_page() {
  static const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
  return page;
}

// Counts fork()s in this process's line: a child must not copy code into the shared memory its
// parent runs, so it starts chunks of its own.
std::atomic<unsigned> fork_generation{0};
void count_fork() { fork_generation.fetch_add(1, std::memory_order_relaxed); }
unsigned current_fork_generation() {
  static const bool registered = ::pthread_atfork(nullptr, nullptr, count_fork) == 0;
  (void)registered;
  return fork_generation.load(std::memory_order_relaxed);
}

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

int open_memory_file() {
  const int fd = ::memfd_create("kiln-jit-code", MFD_CLOEXEC | kMemfdExec);
  if (fd >= 0 || errno != EINVAL) return fd;
  return ::memfd_create("kiln-jit-code", MFD_CLOEXEC);
}

}  // namespace

CodeArena::~CodeArena() {
  for (const Chunk& chunk : chunks_) {
    ::munmap(chunk.executable, chunk.size);
    if (chunk.writable != chunk.executable) ::munmap(chunk.writable, chunk.size);
  }
}

CodeArena::Layout CodeArena::layout() const {
  std::lock_guard lock(mu_);
  return layout_;
}

bool CodeArena::add_packed_chunk(std::size_t bytes) {
  const int fd = open_memory_file();
  if (fd < 0) return false;
  void* writable = MAP_FAILED;
  void* executable = MAP_FAILED;
  if (::ftruncate(fd, off_t(bytes)) == 0) {
    writable = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    executable = ::mmap(nullptr, bytes, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
  }
  ::close(fd);  // the mappings keep the memory
  if (writable == MAP_FAILED || executable == MAP_FAILED) {
    if (writable != MAP_FAILED) ::munmap(writable, bytes);
    if (executable != MAP_FAILED) ::munmap(executable, bytes);
    return false;
  }
  chunks_.push_back({static_cast<std::uint8_t*>(writable), static_cast<std::uint8_t*>(executable), bytes, 0});
  return true;
}

bool CodeArena::add_private_chunk(std::size_t bytes) {
  void* mem = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return false;
  auto* at = static_cast<std::uint8_t*>(mem);
  chunks_.push_back({at, at, bytes, 0});
  return true;
}

Result<const std::uint8_t*> CodeArena::install(std::span<const std::uint8_t> code, std::uint32_t alignment) {
  const std::size_t page = os_page();
  if (!std::has_single_bit(alignment) || alignment > page)
    return make_error("code alignment " + std::to_string(alignment) + " is not a power of two up to the page size");
  const std::size_t align = std::max(alignment, kMinAlignment);
  const std::size_t size = std::max<std::size_t>(code.size(), 1);
  std::lock_guard lock(mu_);
  if (layout_ == Layout::kPacked) {
    if (const unsigned generation = current_fork_generation(); generation != fork_generation_) {
      fork_generation_ = generation;
      for (Chunk& chunk : chunks_) chunk.used = chunk.size;  // shared with the parent: full for this process
    }
    const bool fits = !chunks_.empty() && round_up(chunks_.back().used, align) + size <= chunks_.back().size;
    if (!fits && !add_packed_chunk(std::max(kChunkBytes, round_up(size, page)))) {
      if (!chunks_.empty()) return make_error("cannot map memory for compiled code");
      layout_ = Layout::kPerPage;  // this system refuses executable shared memory
    }
  }
  if (layout_ == Layout::kPacked) {
    Chunk& chunk = chunks_.back();
    const std::size_t offset = round_up(chunk.used, align);
    chunk.used = offset + size;
    std::memcpy(chunk.writable + offset, code.data(), code.size());
    // Orders the copy before execution from the other view where instruction caches need it (a
    // no-op on x86-64).
    __builtin___clear_cache(reinterpret_cast<char*>(chunk.executable + offset),
                            reinterpret_cast<char*>(chunk.executable + offset + size));
    return static_cast<const std::uint8_t*>(chunk.executable + offset);
  }
  const std::size_t span = round_up(size, page);
  if ((chunks_.empty() || chunks_.back().size - chunks_.back().used < span) &&
      !add_private_chunk(std::max(kChunkBytes, span)))
    return make_error("cannot map memory for compiled code");
  Chunk& chunk = chunks_.back();
  std::uint8_t* at = chunk.writable + chunk.used;
  chunk.used += span;  // taken whatever happens: a range that failed to change stays unused
  std::memcpy(at, code.data(), code.size());
  if (::mprotect(at, span, PROT_READ | PROT_EXEC) != 0) return make_error("cannot make compiled code executable");
  return static_cast<const std::uint8_t*>(at);
}

}  // namespace kiln::jit
