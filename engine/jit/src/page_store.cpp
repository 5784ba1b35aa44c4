#include "kiln/jit/page_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/rand.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <thread>

#include "kiln/cache/hash.h"
#include "kiln/cache/private_files.h"
#include "kiln/core/text.h"
#include "kiln/jit/page_file.h"

namespace kiln::jit {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kPageBytes = kPageWords * 4;

std::span<const std::byte> as_bytes(const void* p, std::size_t n) { return {static_cast<const std::byte*>(p), n}; }

bool covers(const std::vector<std::uint16_t>& have, std::span<const std::uint16_t> want) {
  return std::includes(have.begin(), have.end(), want.begin(), want.end());
}

std::string entries_hash(std::span<const std::uint16_t> entries) {
  return cache::hex64(cache::xxh3_64(as_bytes(entries.data(), entries.size() * 2)));
}

std::optional<std::vector<std::byte>> read_page_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  const auto* begin = reinterpret_cast<const std::byte*>(text.data());
  return std::vector<std::byte>(begin, begin + text.size());
}

// The per-user key: created once (0600, atomically), refused if anyone else could have written it.
Result<std::vector<std::byte>> load_or_create_key(const fs::path& dir) {
  const fs::path path = dir / "secret.key";
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      struct stat st;
      std::vector<std::byte> key(32);
      const bool ok = ::fstat(fd, &st) == 0 && ::read(fd, key.data(), key.size()) == ssize_t(key.size());
      ::close(fd);
      if (!ok) return make_error(path.string() + ": cannot read the cache key");
      if (st.st_uid != ::geteuid() || (st.st_mode & 077) != 0)
        return make_error(path.string() + ": the cache key must belong to this user with mode 0600");
      return key;
    }
    if (errno != ENOENT) return make_error(path.string() + ": cannot open the cache key: " + std::strerror(errno));
    std::vector<std::byte> key(32);
    if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), int(key.size())) != 1)
      return make_error("no randomness for the cache key");
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
      return make_error(path.string() + ": cannot create the cache key: " +
                        (write_errno ? std::strerror(write_errno) : "short write"));
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
  fs::path build_dir, ns_dir;
  std::uint64_t fingerprint_hash = 0;
  int lock_fd = -1;

  std::mutex mu;  // guards queue
  std::condition_variable cv, idle_cv;
  struct Job {
    fs::path dir, file;
    std::vector<std::byte> bytes;
    std::vector<std::uint16_t> entries;
  };
  std::deque<Job> queue;
  bool writing = false, stopping = false;
  std::thread writer;

  std::array<std::uint8_t, 32> mac(std::span<const std::byte> data) const { return cache::hmac_sha256(key, data); }

  std::string page_name(std::span<const std::uint32_t> page, abi::JitMode mode) const {
    std::string hash;
    if (faults.weak_key) {
      std::uint64_t nonzero = 0;
      for (std::uint32_t w : page) nonzero += w != 0;
      hash = cache::hex64(nonzero) + cache::hex64(0);
    } else {
      hash = cache::xxh3_128(as_bytes(page.data(), kPageBytes)).hex();
    }
    return hash + "-" + std::to_string(static_cast<std::uint32_t>(mode));
  }

  void write_loop() {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty()) return;
      Job job = std::move(queue.front());
      queue.pop_front();
      writing = true;
      lock.unlock();
      write(job);
      lock.lock();
      writing = false;
      idle_cv.notify_all();
    }
  }

  void write(const Job& job) {
    if (!cache::write_file_atomic(job.dir / job.file, job.bytes)) return;
    // The new variant covers the ones whose entries it includes: they go.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(job.dir, ec)) {
      if (e.path().filename() == job.file || e.path().extension() != ".jc") continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::vector<std::byte> header(kPageFileHeaderBytes);
      if (!in.read(reinterpret_cast<char*>(header.data()), std::streamsize(header.size()))) continue;
      if (covers(job.entries, page_file_entries_unchecked(header))) ::unlink(e.path().c_str());
    }
  }
};

PageStore::PageStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PageStore::~PageStore() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->cv.notify_all();
  if (impl_->writer.joinable()) impl_->writer.join();
  if (impl_->lock_fd >= 0) ::close(impl_->lock_fd);
}

Result<std::unique_ptr<PageStore>> PageStore::open(PageStoreOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->faults = PageStoreFaults::from_environment();
  const fs::path& dir = impl->options.dir;
  if (auto s = cache::make_private_dirs(dir); !s) return s.error();
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || st.st_uid != ::geteuid())
    return make_error(dir.string() + ": the page cache directory must belong to this user");
  auto key = load_or_create_key(dir);
  if (!key) return key.error();
  impl->key = std::move(*key);
  impl->fingerprint_hash = cache::xxh3_64(impl->options.fingerprint);
  impl->build_dir = dir / impl->options.build_id;
  impl->ns_dir = impl->build_dir / cache::hex64(impl->fingerprint_hash);
  if (auto s = cache::make_private_dirs(impl->ns_dir); !s) return s.error();
  // A lease on the build namespace (prune never removes one that is held) and its LRU stamp.
  impl->lock_fd = ::open((impl->build_dir / "LOCK").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (impl->lock_fd >= 0) (void)::flock(impl->lock_fd, LOCK_SH);
  (void)cache::write_file_atomic(impl->build_dir / "USED", as_bytes("used\n", 5));
  if (!fs::exists(impl->ns_dir / "FINGERPRINT.txt"))
    (void)cache::write_file_atomic(impl->ns_dir / "FINGERPRINT.txt",
                                   as_bytes(impl->options.fingerprint.data(), impl->options.fingerprint.size()));
  if (impl->options.background_writes) impl->writer = std::thread([p = impl.get()] { p->write_loop(); });
  return std::unique_ptr<PageStore>(new PageStore(std::move(impl)));
}

void PageStore::set_faults(PageStoreFaults faults) { impl_->faults = faults; }
const fs::path& PageStore::namespace_dir() const { return impl_->ns_dir; }

fs::path PageStore::page_dir(std::span<const std::uint32_t> page, abi::JitMode mode) const {
  return impl_->ns_dir / impl_->page_name(page, mode);
}

PageLookup PageStore::find(std::span<const std::uint32_t> page, std::span<const std::uint16_t> entries,
                           abi::JitMode mode) {
  PageLookup result;
  const fs::path dir = page_dir(page, mode);
  const cache::Hash128 page_hash = cache::xxh3_128(as_bytes(page.data(), kPageBytes));
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".jc") continue;
    auto bytes = read_page_file(e.path());
    if (!bytes) continue;
    const auto drop = [&](int& counter) {
      ++counter;
      ::unlink(e.path().c_str());
    };
    PageFileCheck check = check_page_file(*bytes, impl_->key);
    if (check.verdict == PageFileCheck::Verdict::kDamaged) {
      drop(result.corrupt);
      continue;
    }
    if (check.verdict == PageFileCheck::Verdict::kForged) {
      drop(result.hmac_rejected);
      continue;
    }
    PageFileContents& file = check.contents;
    if (file.fingerprint_hash != impl_->fingerprint_hash || file.mode != static_cast<std::uint32_t>(mode)) {
      drop(result.corrupt);  // a blob in the wrong place: nothing to serve it for
      continue;
    }
    // The whole page is compared: no hash collision can serve code compiled for other bytes.
    if (!impl_->faults.skip_compare &&
        (file.page_hash_high != page_hash.high || file.page_hash_low != page_hash.low ||
         std::memcmp(file.page_words.data(), page.data(), kPageBytes) != 0)) {
      ++result.compare_rejected;
      continue;
    }
    if (!covers(file.code.entries, entries)) {
      if (file.code.entries.size() > result.variant_entries.size()) result.variant_entries = std::move(file.code.entries);
      continue;
    }
    // The LRU clock: a hit refreshes the blob's time when it is a minute old.
    struct stat st;
    if (::stat(e.path().c_str(), &st) == 0 && st.st_mtim.tv_sec + 60 < ::time(nullptr))
      (void)::utimensat(AT_FDCWD, e.path().c_str(), nullptr, 0);
    result.hit = std::move(file.code);
    return result;
  }
  return result;
}

void PageStore::put(std::span<const std::uint32_t> page, abi::JitMode mode, const CompiledPage& compiled) {
  std::vector<std::byte> bytes = encode_page_file(page, mode, impl_->fingerprint_hash, compiled, impl_->key);
  Impl::Job job{page_dir(page, mode), entries_hash(compiled.entries) + ".jc", std::move(bytes), compiled.entries};
  if (!impl_->options.background_writes) {
    impl_->write(job);
    return;
  }
  {
    std::lock_guard lock(impl_->mu);
    impl_->queue.push_back(std::move(job));
  }
  impl_->cv.notify_one();
}

void PageStore::flush() {
  std::unique_lock lock(impl_->mu);
  impl_->idle_cv.wait(lock, [&] { return impl_->queue.empty() && !impl_->writing; });
}

Result<std::uint64_t> PageStore::prune() {
  flush();
  std::uint64_t removed = 0;
  std::error_code ec;
  // Build namespaces, newest first by their USED stamp.
  std::vector<std::pair<fs::file_time_type, fs::path>> builds;
  for (const auto& e : fs::directory_iterator(impl_->options.dir, ec))
    if (e.is_directory()) builds.emplace_back(fs::last_write_time(e.path() / "USED", ec), e.path());
  std::sort(builds.begin(), builds.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = std::size_t(std::max(1, impl_->options.keep_builds)); i < builds.size(); ++i) {
    const fs::path& build = builds[i].second;
    if (build == impl_->build_dir) continue;
    const int fd = ::open((build / "LOCK").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {  // nobody holds it: safe to remove
      for (const auto& f : fs::recursive_directory_iterator(build, ec))
        if (f.path().extension() == ".jc") ++removed;
      fs::remove_all(build, ec);
    }
    ::close(fd);
  }
  // The size cap over what is left, least recently used first.
  struct Blob {
    fs::file_time_type time;
    std::uint64_t size;
    fs::path path;
  };
  std::vector<Blob> blobs;
  std::uint64_t total = 0;
  for (const auto& f : fs::recursive_directory_iterator(impl_->options.dir, ec)) {
    if (f.path().extension() != ".jc") continue;
    const std::uint64_t size = f.file_size(ec);
    blobs.push_back({f.last_write_time(ec), size, f.path()});
    total += size;
  }
  if (total > impl_->options.max_bytes) {
    std::sort(blobs.begin(), blobs.end(), [](const Blob& a, const Blob& b) { return a.time < b.time; });
    const std::uint64_t target = impl_->options.max_bytes / 10 * 9;
    for (const Blob& b : blobs) {
      if (total <= target) break;
      if (::unlink(b.path.c_str()) == 0) {
        total -= b.size;
        ++removed;
      }
    }
  }
  return removed;
}

}  // namespace kiln::jit
