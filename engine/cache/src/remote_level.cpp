#include "remote_level.h"

#include "blob_format.h"
#include "kiln/cache/cache_kinds.h"

namespace kiln::cache {
namespace {

// Uploads waiting beyond this make put() wait: memory stays bounded when the server is slow.
constexpr std::uint64_t kMaxQueuedBytes = std::uint64_t{64} << 20;
// Uploads at once: across a network each one waits a round trip, and a cook compiles faster than
// one connection uploads. On loopback one and four senders measure the same (BENCHMARKS.md).
constexpr int kSenders = 4;

}  // namespace

RemoteLevel::RemoteLevel(std::shared_ptr<RemoteStorage> storage, bool read_only, KindUseCounters& use,
                         std::function<void(const std::string&)> warn, std::vector<trust::HmacKey> keys)
    : storage_(std::move(storage)),
      read_only_(read_only),
      keys_(std::move(keys)),
      use_(use),
      warn_(std::move(warn)),
      senders_(kSenders) {
  if (senders_.started() == 0) {  // nothing would send an upload: read from the remote, write to it no more
    writes_off_.store(true);
    // A read-only remote loses nothing; otherwise say so, and leave the one line of trouble a run
    // prints free for the remote becoming unavailable later.
    if (!read_only_) {
      trouble_ =
          "remote cache " + storage_->address() + ": " + senders_.refused() + ": reading from it, writing no more";
      if (warn_) warn_(trouble_);
    }
  }
}

RemoteLevel::~RemoteLevel() = default;  // the senders' pool sends what is queued, then stops

std::string RemoteLevel::remote_key(const BlobNamespace& ns, const BlobKey& key) {
  return "kiln/" + ns.kind + "/" + ns.id + "/" + key.hex();
}

std::string RemoteLevel::trouble() const {
  std::lock_guard lock(mu_);
  return trouble_;
}

void RemoteLevel::failed(const RemoteReply& reply, bool writing) {
  const bool whole = reply.outcome == RemoteReply::kUnreachable || !writing;
  (whole ? off_ : writes_off_).store(true);
  const std::string message = whole ? "remote cache " + storage_->address() + " unavailable (" + reply.problem +
                                          "): going on with the local cache"
                                    : "remote cache " + storage_->address() + " refused a write (" + reply.problem +
                                          "): reading from it, writing no more";
  {
    std::lock_guard lock(mu_);
    if (!whole && !trouble_.empty()) return;  // already off: that message stands
    trouble_ = message;
  }
  if (!warned_.exchange(true) && warn_) warn_(message);  // one line per run, whatever follows
}

namespace {

// What a tag covers: the entry's name on the server, then its image.
trust::HmacTag entry_tag(const trust::HmacKey& key, const std::string& remote_key, std::span<const std::byte> image) {
  static constexpr std::string_view kDomain = "kiln remote entry 1";
  return trust::hmac_sha256(key, {std::as_bytes(std::span(kDomain)), std::as_bytes(std::span(remote_key)),
                                  std::as_bytes(std::span("\0", 1)), image});
}

}  // namespace

std::shared_ptr<const Bytes> RemoteLevel::keyed(const std::string& remote_key,
                                                std::shared_ptr<const Bytes> image) const {
  if (keys_.empty()) return image;
  const trust::HmacTag tag = entry_tag(keys_.front(), remote_key, *image);
  auto out = std::make_shared<Bytes>();
  out->reserve(image->size() + tag.size());
  out->insert(out->end(), image->begin(), image->end());
  for (std::uint8_t b : tag) out->push_back(std::byte(b));
  return out;
}

std::optional<Bytes> RemoteLevel::unkeyed(const std::string& remote_key, Bytes entry) const {
  if (keys_.empty()) return entry;
  if (entry.size() < trust::kHmacTagBytes) return std::nullopt;
  const std::size_t image_size = entry.size() - trust::kHmacTagBytes;
  const std::span<const std::byte> image(entry.data(), image_size);
  const auto* stored = reinterpret_cast<const std::uint8_t*>(entry.data() + image_size);
  for (const trust::HmacKey& key : keys_) {
    const trust::HmacTag tag = entry_tag(key, remote_key, image);
    if (trust::same_tag(tag, std::span<const std::uint8_t, trust::kHmacTagBytes>(stored, trust::kHmacTagBytes))) {
      entry.resize(image_size);
      return entry;
    }
  }
  return std::nullopt;
}

std::optional<Bytes> RemoteLevel::get(const BlobNamespace& ns, const BlobKey& key) {
  if (off_.load(std::memory_order_relaxed)) return std::nullopt;
  const int kind = cache_kind_index(ns.kind);
  const std::uint64_t tag_bytes = keys_.empty() ? 0 : trust::kHmacTagBytes;
  EntryLimits limits{blob_format::kHeaderSize + blob_format::kMaxBlobBytes + tag_bytes, blob_format::kHeaderSize,
                     [&key, tag_bytes](std::span<const std::byte> head) -> Result<std::uint64_t> {
                       auto size = blob_format::blob_size_from_header(head, key);
                       if (!size) return size.error();
                       return *size + tag_bytes;
                     }};
  const std::string name = remote_key(ns, key);
  RemoteReply reply = storage_->get(name, limits);
  switch (reply.outcome) {
    case RemoteReply::kOk: break;
    case RemoteReply::kAbsent: use_.add(kind, KindUseCounters::kRemoteMisses); return std::nullopt;
    case RemoteReply::kUnusable:  // a bad entry: like a damaged one, replaced by the next put
      // Keyed, an entry whose size or header is not its name's has no valid tag either.
      use_.add(kind, keys_.empty() ? KindUseCounters::kRemoteRejected : KindUseCounters::kRemoteUntrusted);
      return std::nullopt;
    default:
      use_.add(kind, KindUseCounters::kRemoteErrors);
      failed(reply, false);
      return std::nullopt;
  }
  use_.add(kind, KindUseCounters::kRemoteBytesRead, reply.value.size());
  // Keyed: no valid tag, no use, whatever its checksums say.
  std::optional<Bytes> image = unkeyed(name, std::move(reply.value));
  if (!image) {
    use_.add(kind, KindUseCounters::kRemoteUntrusted);
    return std::nullopt;
  }
  if (blob_format::check(*image, key)) {
    // Damaged on the way or on the server, or another build's entry under this name: never used;
    // the local result that replaces it is put again over it.
    use_.add(kind, KindUseCounters::kRemoteRejected);
    return std::nullopt;
  }
  use_.add(kind, KindUseCounters::kRemoteHits);
  return image;
}

void RemoteLevel::put(const BlobNamespace& ns, const BlobKey& key, std::shared_ptr<const Bytes> image) {
  enqueue({remote_key(ns, key), cache_kind_index(ns.kind), std::move(image), false, 0});
}

void RemoteLevel::fill(const BlobNamespace& ns, const BlobKey& key, std::shared_ptr<const Bytes> image) {
  enqueue({remote_key(ns, key), cache_kind_index(ns.kind), std::move(image), true, 0});
}

void RemoteLevel::enqueue(Upload upload) {
  if (read_only_ || off_.load(std::memory_order_relaxed) || writes_off_.load(std::memory_order_relaxed)) return;
  {
    std::unique_lock lock(mu_);
    space_cv_.wait(lock, [&] { return queued_bytes_ < kMaxQueuedBytes; });
    queued_bytes_ += upload.image->size();
    upload.seq = ++last_seq_;
    unsent_.insert(upload.seq);
  }
  senders_.submit([this, upload = std::move(upload)] { send(upload); });
}

void RemoteLevel::flush() {
  // Senders finish out of order: wait until no upload up to the newest one now is unsent.
  std::unique_lock lock(mu_);
  const std::uint64_t target = last_seq_;
  idle_cv_.wait(lock, [&] { return unsent_.empty() || *unsent_.begin() > target; });
}

RemoteReply RemoteLevel::present(const Upload& upload) {
  if (keys_.empty()) return storage_->has(upload.key);
  // Keyed, an entry is there only when its tag verifies: an untagged one (from before the farm had
  // a key) or a foreign one is replaced, not left to block the fill for good.
  const std::uint64_t size = upload.image->size() + trust::kHmacTagBytes;
  RemoteReply reply = storage_->get(upload.key, EntryLimits{size, 0, {}});
  if (reply.outcome == RemoteReply::kUnusable ||
      (reply.outcome == RemoteReply::kOk && !unkeyed(upload.key, std::move(reply.value))))
    reply.outcome = RemoteReply::kAbsent;
  reply.value.clear();
  return reply;
}

void RemoteLevel::send(const Upload& upload) {
  if (!off_.load() && !writes_off_.load()) {
    RemoteReply reply;
    if (upload.only_if_absent) reply = present(upload);
    if (!upload.only_if_absent || reply.outcome == RemoteReply::kAbsent)
      reply = storage_->put(upload.key, *keyed(upload.key, upload.image));
    else if (reply.outcome == RemoteReply::kOk)
      reply.outcome = RemoteReply::kAbsent;  // there already: nothing sent
    if (reply.outcome == RemoteReply::kOk) {
      use_.add(upload.kind, KindUseCounters::kRemoteWrites);
      use_.add(upload.kind, KindUseCounters::kRemoteBytesWritten,
               upload.image->size() + (keys_.empty() ? 0 : trust::kHmacTagBytes));
    } else if (reply.outcome != RemoteReply::kAbsent) {
      use_.add(upload.kind, KindUseCounters::kRemoteErrors);
      failed(reply, true);
    }
  }
  std::lock_guard lock(mu_);
  unsent_.erase(upload.seq);
  queued_bytes_ -= upload.image->size();
  space_cv_.notify_all();
  idle_cv_.notify_all();
}

}  // namespace kiln::cache
