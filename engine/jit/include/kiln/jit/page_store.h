#pragma once
// PageStore: the persistent page code cache on disk.
//
//   <dir>/secret.key                                       per-user HMAC key, 0600
//   <dir>/<build-id>/LOCK, USED                            a build's namespace (flock lease, LRU stamp)
//   <dir>/<build-id>/<fingerprint>/FINGERPRINT.txt         the codegen settings in words
//   <dir>/<build-id>/<fingerprint>/<page-hash>-<mode>/<entries-hash>.jc
//
// No index: a lookup lists one page directory. A blob is a header (magic, version, mode,
// fingerprint, page hash, code length and alignment, function offset, checksum, entry bitmap,
// used-word bitmap), the page's 1024 words, the code, and an HMAC-SHA256 of all of it under the
// per-user key. A hit must pass the checksum (else: corrupt, deleted), the HMAC (else: tampered or
// written by someone else, deleted), cover the requested entries, and hold exactly the requested
// page's bytes (else: a hash collision, a miss). A new variant deletes the variants it covers.
// Blobs are written by a background thread through a temp file, fsync and rename.
//
// Fault injection (proving the page compare is load-bearing): KILN_BREAK=jitcache-weak-key names pages by a
// deliberately weak hash (their count of non-zero words), so different pages share a directory;
// KILN_BREAK=jitcache-skip-compare serves a blob without comparing its page's bytes.
//
// Thread-safety: every member function may be called from any thread; one writer thread per store.

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
  int compare_rejected = 0, hmac_rejected = 0, corrupt = 0;
};

struct PageStoreOptions {
  std::filesystem::path dir;
  std::string build_id;     // any rebuild of the code generator is a new namespace
  std::string fingerprint;  // codegen settings and host target
  std::uint64_t max_bytes = std::uint64_t{1} << 30;
  int keep_builds = 3;
  bool background_writes = true;
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
  void flush();
  // Keeps the newest keep_builds build namespaces (never one another process holds) and the size
  // cap (least recently used blobs first, down to 90% of it). Returns the blobs removed.
  Result<std::uint64_t> prune();

  std::filesystem::path page_dir(std::span<const std::uint32_t> page, abi::JitMode mode) const;
  const std::filesystem::path& namespace_dir() const;
  void set_faults(PageStoreFaults faults);

 private:
  struct Impl;
  explicit PageStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln::jit
