#pragma once
// JitRuntime: compiled pages for the Vms of a process.
//
// A Vm asks for a page when it gets hot. The runtime keys it by the page's bytes and the mode;
// a page already compiled or loaded (by any Vm) is served at once. Otherwise the persistent page
// cache is asked synchronously (a load costs microseconds), and on a miss the page is compiled on
// the compile pool (or on the asking thread in synchronous mode) with the union of the requested
// entries and the best cached variant's, published atomically, and written to the cache in the
// background. Without a compiler (the player) pages that are not cached stay interpreted.
//
// Published code is recorded with its mode, and a slot is keyed by (bytes, mode): code compiled for
// one mode never "covers" a request for another (which would loop asking for it), and a page that could not
// be compiled is remembered as such, so it is never requested again while its bytes are unchanged.
//
// Code lives in memory mapped writable, filled, then switched to read+execute (never both), until
// the runtime is destroyed: Vms that use a runtime must not outlive it.
//
// Thread-safety: every member function may be called from any thread.

#include <atomic>
#include <bitset>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/core/worker_pool.h"
#include "kiln/jit/bytecode.h"
#include "kiln/jit/jit_abi.h"
#include "kiln/jit/page_compiler.h"

namespace kiln::cache {
class BlobStore;
}  // namespace kiln::cache

namespace kiln::jit {

// Code installed for one (page bytes, mode).
struct PageCode {
  abi::PageFunction function = nullptr;
  std::bitset<kPageWords> entries;
  abi::JitMode mode = abi::JitMode::kChecked;
};

// A Vm's handle on a page: code appears in it when ready.
struct PageSlot {
  std::atomic<const PageCode*> code{nullptr};
  std::atomic<bool> unavailable{false};  // cannot be compiled or loaded: stays interpreted
};

class AotSource;

struct JitOptions {
  PageCompiler* compiler = nullptr;   // none: cached pages only (the player)
  AotSource* aot = nullptr;           // compiled pages shipped with the game, asked before the cache
  cache::BlobStore* store = nullptr;  // the persistent cache (its jit kind); none: pages are not kept
  // The compiler's fingerprint (its settings and host target). Empty: the compiler's own. A runtime
  // without a compiler (the player) takes it from whoever filled the cache (the cook's packs).
  std::string fingerprint;
  bool verify = false;              // recompile every cache hit before it runs; a differing one is replaced
  int compile_threads = 1;          // the runtime's own compile threads, when no `pool` is given
  bool synchronous = false;         // compile on the asking thread (tests, the cook, benchmarks)
  std::uint32_t hot_threshold = 8;  // entries into a page (calls, loop iterations) before it is asked for
  // Background compiles run here when given (the tool's one pool); it must outlive the runtime.
  core::WorkerPool* pool = nullptr;
};

struct JitStats {
  std::uint64_t requested = 0;          // pages asked for
  std::uint64_t interpreted = 0;        // pages asked for that have no code (not cached, not compilable)
  std::uint64_t compiled = 0;           // pages compiled
  std::uint64_t loaded = 0;             // pages loaded from the persistent cache
  std::uint64_t compare_rejected = 0;   // cached blobs whose page bytes differ from the request's
  std::uint64_t mac_rejected = 0;       // cached blobs whose MAC is wrong (tampered or foreign): deleted
  std::uint64_t corrupt = 0;            // cached blobs that failed their checksum or format: deleted
  std::uint64_t not_cacheable = 0;      // compiled pages that need something outside themselves
  std::uint64_t compile_failed = 0;     // pages the compiler refused
  std::uint64_t stored = 0;             // blobs written
  std::uint64_t verify_mismatches = 0;  // verify mode: hits whose recompiled code differs
  std::uint64_t compile_ns = 0, load_ns = 0;
  std::string summary() const;
};

class JitRuntime {
 public:
  static Result<std::unique_ptr<JitRuntime>> create(JitOptions options);
  ~JitRuntime();
  JitRuntime(const JitRuntime&) = delete;
  JitRuntime& operator=(const JitRuntime&) = delete;

  // The slot of (page, mode), starting its load or compile for `entries` if it is new. `page` is the
  // page's key words (page_key_words(): the page and the callees it inlines).
  std::shared_ptr<PageSlot> request(std::span<const std::uint32_t> page, std::span<const std::uint16_t> entries,
                                    abi::JitMode mode);
  // Ahead of time (the cook): every page of `program` (with `only`, those whose aot_page_id() it
  // holds) with all its entries, for `mode`, into memory and the persistent cache, compiled on the
  // calling thread where the cache does not have it. Returns how many pages have code.
  std::size_t precompile(const Program& program, abi::JitMode mode, const std::set<std::string>* only = nullptr);
  // Blocks until no compile is queued or running.
  void wait_idle();
  // Blocks until every blob handed to the cache is on disk.
  void flush();

  const JitOptions& options() const;
  JitStats stats() const;

 private:
  struct Impl;
  explicit JitRuntime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The identity of the code generator this binary was built with: a hash of the compiler's and the
// bytecode's sources. The cook and the player built from one tree share it.
const char* jit_build_id();

}  // namespace kiln::jit
