#include "kiln/jit/page_store.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "kiln/cache/blob_store.h"
#include "kiln/cache/hash.h"
#include "kiln/cache/private_files.h"
#include "kiln/core/text.h"
#include "kiln/jit/page_file.h"

namespace kiln::jit {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kKeyBytes = 32;

std::span<const std::byte> as_bytes(const void* p, std::size_t n) { return {static_cast<const std::byte*>(p), n}; }

bool covers(const std::vector<std::uint16_t>& have, std::span<const std::uint16_t> want) {
  return std::includes(have.begin(), have.end(), want.begin(), want.end());
}

// The kernel's random bytes (blocks only until its pool is first seeded, early at boot).
bool random_bytes(std::span<std::byte> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::getrandom(out.data() + done, out.size() - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += std::size_t(n);
  }
  return true;
}

// Reads the key: a regular file of this user, mode 0600, exactly kKeyBytes long. Never blocks (a
// FIFO planted there is refused, not waited on).
Result<std::vector<std::byte>> read_key(const fs::path& path, int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return make_error(path.string() + ": cannot stat the cache key: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return make_error(path.string() + ": the cache key is not a regular file");
  if (st.st_uid != ::geteuid() || (st.st_mode & 077) != 0)
    return make_error(path.string() + ": the cache key must belong to this user with mode 0600");
  std::vector<std::byte> key(kKeyBytes);
  if (st.st_size != off_t(kKeyBytes) || ::read(fd, key.data(), key.size()) != ssize_t(key.size()))
    return make_error(path.string() + ": the cache key is damaged (" + std::to_string(st.st_size) +
                      " bytes, expected " + std::to_string(kKeyBytes) + ")");
  return key;
}

// The per-user key: created once (0600, atomically), refused if anyone else could have written it.
Result<std::vector<std::byte>> load_or_create_key(const fs::path& dir) {
  const fs::path path = dir / "secret.key";
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      auto key = read_key(path, fd);
      ::close(fd);
      return key;
    }
    if (errno == ELOOP) return make_error(path.string() + ": the cache key is a symbolic link");
    if (errno != ENOENT) return make_error(path.string() + ": cannot open the cache key: " + std::strerror(errno));
    std::vector<std::byte> key(kKeyBytes);
    if (!random_bytes(key)) return make_error(std::string("no randomness for the cache key: ") + std::strerror(errno));
    // Written aside and linked into place: of two processes creating it, one key wins for both.
    const fs::path temp = dir / (".tmp.key." + std::to_string(::getpid()));
    const int out = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) return make_error(temp.string() + ": cannot create: " + std::strerror(errno));
    const ssize_t wrote = ::write(out, key.data(), key.size());
    const bool written = wrote == ssize_t(key.size()) && ::fsync(out) == 0;
    const int write_errno = wrote < 0 || !written ? errno : 0;
    ::close(out);
    if (written) (void)::link(temp.c_str(), path.c_str());
    ::unlink(temp.c_str());
    if (!written)
      return make_error(path.string() +
                        ": cannot create the cache key: " + (write_errno ? std::strerror(write_errno) : "short write"));
  }
  return make_error(path.string() + ": cannot create the cache key");
}

}  // namespace

PageStoreFaults PageStoreFaults::from_environment() {
  PageStoreFaults faults;
  if (const char* v = std::getenv("KILN_BREAK")) {
    for (const std::string& item : split_nonempty(v, ',')) {
      if (item == "jitcache-weak-key") faults.weak_key = true;
      if (item == "jitcache-skip-compare") faults.skip_compare = true;
    }
  }
  return faults;
}

struct PageStore::Impl {
  PageStoreOptions options;
  PageStoreFaults faults;
  std::vector<std::byte> key;
  cache::BlobStore* store = nullptr;  // the process's, not owned
  cache::BlobNamespace ns;
  std::uint64_t fingerprint_hash = 0;

  cache::BlobKey key_of(std::span<const std::uint32_t> page, abi::JitMode mode) const {
    const std::uint32_t m = static_cast<std::uint32_t>(mode);
    if (faults.weak_key) {
      std::uint64_t nonzero = 0;
      for (std::uint32_t w : page) nonzero += w != 0;
      return {{nonzero, m}};
    }
    return {cache::xxh3_128(as_bytes(page.data(), page.size() * 4), m)};
  }
};

PageStore::PageStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PageStore::~PageStore() { impl_->store->flush(); }

Result<std::unique_ptr<PageStore>> PageStore::open(PageStoreOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->faults = PageStoreFaults::from_environment();
  if (!impl->options.store) return make_error("a page store needs the cache store");
  impl->store = impl->options.store;
  // The namespace first: it checks the kind's directory (owner, mode) before the key in it is used.
  auto ns = impl->store->open_namespace("jit", {{"jit-build", impl->options.build_id}},
                                        {{"fingerprint", impl->options.fingerprint}});
  if (!ns) return ns.error();
  impl->ns = std::move(*ns);
  auto key = load_or_create_key(impl->store->root() / "jit");
  if (!key) return key.error();
  impl->key = std::move(*key);
  impl->fingerprint_hash = cache::xxh3_64(impl->options.fingerprint);
  return std::unique_ptr<PageStore>(new PageStore(std::move(impl)));
}

void PageStore::set_faults(PageStoreFaults faults) { impl_->faults = faults; }
const fs::path& PageStore::namespace_dir() const { return impl_->ns.dir; }

fs::path PageStore::entry_path(std::span<const std::uint32_t> page, abi::JitMode mode) const {
  return impl_->store->blob_path(impl_->ns, impl_->key_of(page, mode));
}

PageLookup PageStore::find(std::span<const std::uint32_t> page, std::span<const std::uint16_t> entries,
                           abi::JitMode mode) {
  PageLookup result;
  const cache::BlobKey key = impl_->key_of(page, mode);
  bool corrupt = false;
  auto bytes = impl_->store->get(impl_->ns, key, &corrupt);
  result.corrupt += corrupt;
  if (!bytes) return result;
  PageFileCheck check = check_page_file(*bytes, impl_->key);
  if (check.verdict != PageFileCheck::Verdict::kValid) {
    ++(check.verdict == PageFileCheck::Verdict::kForged ? result.mac_rejected : result.corrupt);
    impl_->store->remove(impl_->ns, key);
    return result;
  }
  PageFileContents& file = check.contents;
  if (file.fingerprint_hash != impl_->fingerprint_hash || file.mode != static_cast<std::uint32_t>(mode)) {
    ++result.corrupt;  // an entry in the wrong place: nothing to serve it for
    impl_->store->remove(impl_->ns, key);
    return result;
  }
  // The whole page and its inlined callees are compared: no hash collision can serve code compiled
  // for other bytes.
  const std::size_t key_bytes = page.size() * 4;
  if (!impl_->faults.skip_compare &&
      (file.page_words.size() != key_bytes || std::memcmp(file.page_words.data(), page.data(), key_bytes) != 0)) {
    ++result.compare_rejected;
    return result;
  }
  if (!covers(file.code.entries, entries)) {
    result.variant_entries = std::move(file.code.entries);
    return result;
  }
  result.hit = std::move(file.code);
  return result;
}

void PageStore::put(std::span<const std::uint32_t> page, abi::JitMode mode, const CompiledPage& compiled) {
  std::vector<std::byte> bytes = encode_page_file(page, mode, impl_->fingerprint_hash, compiled, impl_->key);
  impl_->store->put(impl_->ns, impl_->key_of(page, mode), std::move(bytes));
}

void PageStore::remove(std::span<const std::uint32_t> page, abi::JitMode mode) {
  impl_->store->remove(impl_->ns, impl_->key_of(page, mode));
}

void PageStore::flush() { impl_->store->flush(); }

Result<std::uint64_t> PageStore::prune() {
  flush();
  auto scan = impl_->store->prune();
  if (!scan) return scan.error();
  return scan->removed;
}

}  // namespace kiln::jit
