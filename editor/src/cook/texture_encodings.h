#pragma once
// The cook's GPU encodings of .tx files (block-compressed records, texture_codecs/compress_tx.h),
// kept in the cache store's textures kind under a key made from the .tx's bytes, the target's
// choice and the encoders' versions, so that they travel through the remote level like the
// conversions. A corrupt entry is deleted and the texture encoded again.
//
// Thread-safety: get() may be called from several threads at once (the cook's worker pool);
// several processes may share the store.

#include <atomic>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/cache/blob_store.h"
#include "kiln/core/result.h"
#include "kiln/core/worker_pool.h"
#include "kiln/texture_codecs/compress_tx.h"

namespace kiln::cook {

class TextureEncodings {
 public:
  explicit TextureEncodings(cache::BlobStore* store);  // null: encode every time, keep nothing

  struct Encoded {
    texture_codecs::ShippedTx shipped;
    bool encoded = false;  // false: the cache served it, or it ships as its .tx
  };
  // `name` names the texture in errors. `verify`: a cached encoding is also made again and must be
  // byte-identical.
  Result<Encoded> get(const std::string& name, std::span<const std::byte> tx,
                      const texture_codecs::ShippingChoice& choice, core::WorkerPool* pool, bool verify = false);
  std::size_t discarded() const { return discarded_.load(); }
  // The cache namespace the encodings are kept under (it names their build and versions); none
  // without a store.
  const std::optional<cache::BlobNamespace>& cache_namespace() const { return ns_; }

 private:
  cache::BlobStore* store_;
  std::optional<cache::BlobNamespace> ns_;
  std::atomic<std::size_t> discarded_{0};
};

}  // namespace kiln::cook
