#pragma once
// PageStore: the persistent page code cache, the "jit" kind of the cache store (kiln/cache).
//
//   <root>/jit/secret.key                                   per-user MAC key, 0600
//   <root>/jit/<build>-<fingerprint>/<k0k1>/<key>.blob      one page's code in one mode
//
// The namespace is the code generator's build id (any change to it is a new build, pruned as the
// store prunes builds) and the fingerprint of its settings and host CPU. An entry's key is a hash of
// the page's 1024 words and the mode; its payload a page file (page_file.h): the code, the entries
// it serves, the page's own words and a MAC under the per-user key. A page has one entry: a miss
// compiles the union of what was asked and what the entry served, which then replaces it.
//
// A hit must pass the store's checks (framing, checksum: else corrupt, deleted), the page file's
// framing and MAC (else deleted as tampered or written by someone else), cover the requested
// entries, and hold exactly the requested page's bytes (else: a hash collision, a miss).
//
// Fault injection (proving the page compare is load-bearing): KILN_BREAK=jitcache-weak-key keys pages
// by a deliberately weak hash (their count of non-zero words), so different pages share an entry;
// KILN_BREAK=jitcache-skip-compare serves an entry without comparing its page's bytes.
//
// The entries go through the process's one cache store (kiln/cache/blob_store.h), which the
// caller opens and hands down; the PageStore owns a namespace of it and the kind's key.
//
// Thread-safety: every member function may be called from any thread; the store's writer thread
// writes the entries.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/jit/jit_abi.h"
#include "kiln/jit/page_compiler.h"

namespace kiln::cache {
class BlobStore;
}  // namespace kiln::cache

namespace kiln::jit {

struct StoredPage {
  std::vector<std::uint8_t> code;
  std::uint32_t function_offset = 0;
  std::uint32_t alignment = 16;
  std::vector<std::uint16_t> entries;
};

struct PageLookup {
  std::optional<StoredPage> hit;
  std::vector<std::uint16_t> variant_entries;  // on a miss: the entries of the best valid variant of this page
  int compare_rejected = 0, mac_rejected = 0, corrupt = 0;
};

struct PageStoreOptions {
  cache::BlobStore* store = nullptr;  // the process's cache store (required); it outlives the PageStore
  std::string build_id;               // any rebuild of the code generator is a new namespace
  std::string fingerprint;            // codegen settings and host target
};

struct PageStoreFaults {
  bool weak_key = false, skip_compare = false;
  static PageStoreFaults from_environment();  // KILN_BREAK=a,b
};

class PageStore {
 public:
  static Result<std::unique_ptr<PageStore>> open(PageStoreOptions options);
  ~PageStore();  // flushes
  PageStore(const PageStore&) = delete;
  PageStore& operator=(const PageStore&) = delete;

  PageLookup find(std::span<const std::uint32_t> page, std::span<const std::uint16_t> entries, abi::JitMode mode);
  void put(std::span<const std::uint32_t> page, abi::JitMode mode, const CompiledPage& compiled);
  // Removes the page's entry: its code was found to differ from what compiling the page gives.
  void remove(std::span<const std::uint32_t> page, abi::JitMode mode);
  void flush();
  // The cache store's prune (every kind: the newest keep_builds builds of each, the size cap over
  // all). Returns the entries and namespaces removed.
  Result<std::uint64_t> prune();

  // Where the page's entry lives (for tests and tools).
  std::filesystem::path entry_path(std::span<const std::uint32_t> page, abi::JitMode mode) const;
  const std::filesystem::path& namespace_dir() const;
  void set_faults(PageStoreFaults faults);

 private:
  struct Impl;
  explicit PageStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln::jit
