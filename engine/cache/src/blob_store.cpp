#include "kiln/cache/blob_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdio>

#include "blob_format.h"
#include "blob_store_impl.h"
#include "kiln/core/thread_start.h"
#include "kiln/cache/cache_kinds.h"
#include "kiln/cache/private_files.h"

namespace kiln::cache {
namespace fs = std::filesystem;

void BlobStore::Impl::record_error(std::string message) {
  std::lock_guard lock(mu);
  last_error = std::move(message);
}

void BlobStore::Impl::request_prune() {
  {
    std::lock_guard lock(prune_mu);
    if (prune_stop) return;
    prune_requested = true;
    if (!pruner.joinable()) {
      auto started = core::start_thread([this] { run_pruner(); });
      if (!started) {  // the next request tries again; the cache only grows past its cap meanwhile
        prune_requested = false;
        record_error("cannot prune the cache in the background: " + started.error().message);
        return;
      }
      pruner = std::move(*started);
    }
  }
  prune_cv.notify_all();
}

void BlobStore::Impl::run_pruner() {
  std::unique_lock lock(prune_mu);
  for (;;) {
    prune_cv.wait(lock, [&] { return prune_stop || prune_requested; });
    if (!prune_requested) return;
    prune_requested = false;
    prune_running = true;
    lock.unlock();
    if (auto r = outer->prune(); !r) record_error(r.error().message);
    lock.lock();
    prune_running = false;
    prune_cv.notify_all();
  }
}

Result<std::unique_ptr<BlobStore>> BlobStore::open(BlobStoreOptions options) {
  if (options.root.empty()) return make_error("blob store: no cache root given");
  options.root = fs::absolute(options.root).lexically_normal();
  const fs::path& root = options.root;
  KILN_TRY(make_private_dirs(root));

  // The root must be ours, since we write into it; blobs are trusted only from `owner`.
  const uid_t me = ::geteuid();
  const uid_t owner = options.trusted_owner.value_or(me);
  struct stat st;
  if (::lstat(root.c_str(), &st) != 0)
    return make_error(root.string() + ": cannot stat cache root: " + std::strerror(errno));
  if (S_ISLNK(st.st_mode))
    return make_error(root.string() +
                      ": cache root is a symbolic link; refusing to use it (name the directory itself)");
  if (!S_ISDIR(st.st_mode)) return make_error(root.string() + ": cache root is not a directory");
  if (st.st_uid != me)
    return make_error(root.string() + ": cache root is owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                      std::to_string(me) + "; refusing to use it");
  if ((st.st_mode & 077) != 0) {
    if (::chmod(root.c_str(), 0700) != 0)
      return make_error(root.string() + ": cannot make the cache root private: " + std::strerror(errno));
    make_tree_private(root);  // a cache another tool left open to others: everything in it
  } else {
    make_open_entries_private(root);  // the kinds, a handful: each one left open, with its subtree
  }

  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->owner = owner;
  if (impl->options.auto_prune_after_bytes == 0)
    impl->options.auto_prune_after_bytes = std::max<std::uint64_t>(1, impl->options.max_bytes / 16);
  if (impl->options.remote) {
    auto warn = impl->options.warn;
    if (!warn) warn = [](const std::string& message) { std::fprintf(stderr, "kiln: %s\n", message.c_str()); };
    impl->remote = std::make_unique<RemoteLevel>(impl->options.remote, impl->options.remote_read_only, impl->use,
                                                 std::move(warn), std::move(impl->options.remote_keys));
  }
  std::unique_ptr<BlobStore> store(new BlobStore(std::move(impl)));
  Impl* self = store->impl_.get();
  self->outer = store.get();
  self->writer = std::make_unique<BlobWriter>(
      self->options.background_writes, self->options.max_queued_bytes,
      [self](const fs::path& path, std::uint64_t bytes, const Status& s) {
        if (!s) {
          self->write_errors.fetch_add(1, std::memory_order_relaxed);
          self->record_error(s.error().message);
          return;
        }
        const fs::path relative = path.lexically_relative(self->options.root);
        if (!relative.empty()) self->use.add(cache_kind_index(relative.begin()->string()), KindUseCounters::kWrites);
        self->writes.fetch_add(1, std::memory_order_relaxed);
        self->bytes_written.fetch_add(bytes, std::memory_order_relaxed);
        if (self->written_since_prune.fetch_add(bytes) + bytes >= self->options.auto_prune_after_bytes) {
          self->written_since_prune.store(0);
          self->request_prune();
        }
      });
  return store;
}

BlobStore::BlobStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BlobStore::~BlobStore() {
  // The writer first: its callback may request a prune. Then the pruner, then the locks.
  impl_->writer.reset();
  std::thread pruner;
  {
    std::lock_guard lock(impl_->prune_mu);
    impl_->prune_stop = true;
    pruner = std::move(impl_->pruner);
  }
  impl_->prune_cv.notify_all();
  if (pruner.joinable()) pruner.join();
  impl_->remote.reset();  // sends what waits, and counts it before the counts are kept
  for (const auto& [dir, fd] : impl_->namespace_locks) ::close(fd);
  const auto kinds = cache_kinds();
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    const fs::path kind_dir = impl_->options.root / kinds[k].name;
    if (std::error_code ec; fs::is_directory(kind_dir, ec)) merge_kind_use(kind_dir, impl_->use.snapshot(int(k)));
  }
}

namespace {

// Length-prefixed, so that no choice of names and values can make two identities hash alike.
std::string canonical_identity(Identity identity, std::string& readable) {
  std::sort(identity.begin(), identity.end());
  std::string canonical;
  for (const auto& [name, value] : identity) {
    canonical += std::to_string(name.size()) + ":" + name + "=" + std::to_string(value.size()) + ":" + value + ";";
    readable += name + " = " + value + "\n";
  }
  return canonical;
}

}  // namespace

namespace {

// The namespace id of `build` and `settings`, and their readable form for NAMESPACE.txt.
std::string namespace_id(Identity build, Identity settings, std::string& readable) {
  // The blob format is part of every build: a build with another format never shares a namespace.
  build.emplace_back("kiln.blob_format", std::to_string(blob_format::kFormatVersion));
  readable = "# build\n";
  const std::string build_id = xxh3_128(canonical_identity(std::move(build), readable)).hex().substr(0, 16);
  readable += "# settings\n";
  return build_id + "-" + xxh3_128(canonical_identity(std::move(settings), readable)).hex().substr(0, 16);
}

}  // namespace

std::string namespace_id(Identity build, Identity settings) {
  std::string readable;
  return namespace_id(std::move(build), std::move(settings), readable);
}

Result<BlobNamespace> BlobStore::open_namespace(std::string_view kind, Identity build, Identity settings, bool local) {
  auto ns = make_namespace(kind, std::move(build), std::move(settings), local);
  if (!ns && is_cache_kind(kind) && impl_->options.warn) {
    // Its users go on without the persistent level: said once per kind, naming where and why.
    bool first;
    {
      std::lock_guard lock(impl_->mu);
      first = impl_->unusable_kinds.insert(std::string(kind)).second;
    }
    if (first) impl_->options.warn(std::string(kind) + " cache off: " + ns.error().message);
  }
  return ns;
}

Result<BlobNamespace> BlobStore::make_namespace(std::string_view kind, Identity build, Identity settings, bool local) {
  if (!is_cache_kind(kind)) return make_error("blob store: unknown cache kind '" + std::string(kind) + "'");
  std::string readable;
  BlobNamespace ns;
  ns.kind = std::string(kind);
  ns.id = namespace_id(std::move(build), std::move(settings), readable);
  ns.dir = impl_->options.root / ns.kind / ns.id;
  ns.shared = !local && cache_kinds()[std::size_t(cache_kind_index(kind))].shared;
  KILN_TRY(use_private_dir(impl_->options.root / ns.kind));
  KILN_TRY(use_private_dir(ns.dir));
  const fs::path about = ns.dir / "NAMESPACE.txt";
  if (std::error_code ec; !fs::exists(about, ec)) {
    const std::string text = "# identity of this cache namespace (kind " + ns.kind + ")\n" + readable;
    KILN_TRY(write_file_atomic(about, std::as_bytes(std::span(text.data(), text.size()))));
  }
  KILN_TRY(lock_namespace(ns.dir));
  // The directory mtime orders namespaces for pruning: this one is now the newest of its kind.
  ::utimensat(AT_FDCWD, ns.dir.c_str(), nullptr, 0);
  return ns;
}

Status BlobStore::lock_namespace(const fs::path& dir) {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->namespace_locks.count(dir)) return {};
  }
  const fs::path lock_path = dir / "LOCK";
  for (int attempt = 0; attempt < 3; ++attempt) {
    KILN_TRY(make_private_dirs(dir));
    const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return make_error(lock_path.string() + ": cannot open: " + std::strerror(errno));
    while (::flock(fd, LOCK_SH) != 0 && errno == EINTR) {}
    // A pruner may have removed the namespace between our open and our lock: then the file we
    // locked is no longer in the tree, and we start again.
    struct stat held, now;
    if (::fstat(fd, &held) == 0 && ::stat(lock_path.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev) {
      std::lock_guard lock(impl_->mu);
      if (!impl_->namespace_locks.emplace(dir, fd).second) ::close(fd);
      return {};
    }
    ::close(fd);
  }
  return make_error(dir.string() + ": namespace keeps disappearing under a pruner");
}

fs::path BlobStore::blob_path(const BlobNamespace& ns, const BlobKey& key) const {
  // Built in one string: every page load asks for a path, and joining path components cost about
  // as much as checking the entry's checksum.
  const std::string hex = key.hex();
  const std::string& dir = ns.dir.native();
  std::string path;
  path.reserve(dir.size() + 4 + hex.size() + blob_format::kExtension.size());
  path.append(dir);
  if (!dir.empty() && dir.back() != '/') path.push_back('/');
  path.append(hex, 0, 2).append(1, '/').append(hex).append(blob_format::kExtension);
  return fs::path(std::move(path));
}

std::optional<Bytes> BlobStore::get(const BlobNamespace& ns, const BlobKey& key, bool* corrupt) {
  const fs::path path = blob_path(ns, key);
  if (corrupt) *corrupt = false;
  const int kind = cache_kind_index(ns.kind);
  const bool fill = impl_->remote && ns.shared && impl_->options.remote_fill_from_local;
  if (auto image = impl_->writer->pending(path)) {
    impl_->use.add(kind, KindUseCounters::kHits);
    impl_->hits.fetch_add(1, std::memory_order_relaxed);
    if (fill) impl_->remote->fill(ns, key, image);
    return Bytes(image->begin() + blob_format::kHeaderSize, image->end());
  }
  BlobRead read = read_blob_file(path, key, impl_->owner, impl_->options.touch_interval);
  if (auto* payload = std::get_if<Bytes>(&read)) {
    impl_->use.add(kind, KindUseCounters::kHits);
    impl_->hits.fetch_add(1, std::memory_order_relaxed);
    if (fill) impl_->remote->fill(ns, key, std::make_shared<const Bytes>(blob_format::encode(key, *payload)));
    return std::move(*payload);
  }
  impl_->use.add(kind, KindUseCounters::kMisses);
  impl_->misses.fetch_add(1, std::memory_order_relaxed);
  if (std::holds_alternative<BlobForeign>(read)) {
    // Another user's file sits there: never trusted, nothing is written over it; said once.
    if (impl_->foreign_rejected.fetch_add(1, std::memory_order_relaxed) == 0 && impl_->options.warn)
      impl_->options.warn(std::string(ns.kind) + " cache: " + path.string() +
                          ": owned by another user; not trusted (built here instead, and not kept)");
    return std::nullopt;
  }
  if (auto* bad = std::get_if<BlobCorrupt>(&read)) {
    if (corrupt) *corrupt = true;
    impl_->use.add(kind, KindUseCounters::kCorrupt);
    impl_->corrupt_deleted.fetch_add(1, std::memory_order_relaxed);
    impl_->record_error(path.string() + ": corrupt blob deleted: " + bad->problem);
  } else if (auto* unreadable = std::get_if<BlobUnreadable>(&read)) {
    impl_->unreadable.fetch_add(1, std::memory_order_relaxed);
    impl_->record_error(path.string() + ": " + unreadable->problem);
  }
  // The remote level answers for what this machine does not have (a damaged local entry included).
  if (impl_->remote && ns.shared)
    if (auto image = impl_->remote->get(ns, key)) {
      auto shared = std::make_shared<const Bytes>(std::move(*image));
      Bytes payload(shared->begin() + blob_format::kHeaderSize, shared->end());
      impl_->writer->enqueue(path, std::move(shared));  // kept locally from now on
      return payload;
    }
  return std::nullopt;
}

void BlobStore::put(const BlobNamespace& ns, const BlobKey& key, Bytes payload) {
  auto image = std::make_shared<const Bytes>(blob_format::encode(key, payload));
  if (impl_->remote && ns.shared) impl_->remote->put(ns, key, image);
  impl_->writer->enqueue(blob_path(ns, key), std::move(image));
}

Result<fs::path> BlobStore::temp_path(const BlobNamespace& ns, std::string_view suffix) {
  // "tmp" is walked like a key shard: its temp files are removed once stale.
  const fs::path dir = ns.dir / "tmp";
  KILN_TRY(use_private_dir(dir));
  static std::atomic<std::uint64_t> counter{0};
  return dir / (".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)) + "." +
                std::string(suffix));
}

void BlobStore::remove(const BlobNamespace& ns, const BlobKey& key) {
  const fs::path path = blob_path(ns, key);
  impl_->writer->forget(path);
  if (::unlink(path.c_str()) == 0) impl_->removed.fetch_add(1, std::memory_order_relaxed);
}

void BlobStore::flush() {
  impl_->writer->flush();
  if (impl_->remote) impl_->remote->flush();
  std::unique_lock lock(impl_->prune_mu);
  impl_->prune_cv.wait(lock, [&] { return !impl_->prune_requested && !impl_->prune_running; });
}

BlobStoreStats BlobStore::stats() const {
  const Impl& i = *impl_;
  BlobStoreStats s;
  s.hits = i.hits.load();
  s.misses = i.misses.load();
  s.corrupt_deleted = i.corrupt_deleted.load();
  s.unreadable = i.unreadable.load();
  s.foreign_rejected = i.foreign_rejected.load();
  s.writes = i.writes.load();
  s.write_errors = i.write_errors.load();
  s.bytes_written = i.bytes_written.load();
  s.peak_queued_bytes = i.writer->peak_queued_bytes();
  s.pruned_blobs = i.pruned_blobs.load();
  s.pruned_namespaces = i.pruned_namespaces.load();
  std::lock_guard lock(i.mu);
  s.last_error = i.last_error;
  return s;
}

const fs::path& BlobStore::root() const { return impl_->options.root; }

std::string BlobStore::remote_address() const { return impl_->remote ? impl_->remote->address() : std::string(); }
bool BlobStore::remote_read_only() const { return impl_->remote && impl_->remote->read_only(); }
std::string BlobStore::remote_trouble() const { return impl_->remote ? impl_->remote->trouble() : std::string(); }

KindUse BlobStore::remote_use() const {
  KindUse all;
  for (std::size_t k = 0; k < cache_kinds().size(); ++k) {
    KindUse use = impl_->use.snapshot(int(k));
    use.hits = use.misses = use.corrupt = use.writes = use.evictions = 0;
    all += use;
  }
  return all;
}

}  // namespace kiln::cache
