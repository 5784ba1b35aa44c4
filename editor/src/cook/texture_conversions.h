#pragma once
// The cook's .tx conversions, kept in the cache store (kiln/textures/tx_store.h) under a key made
// from the source's bytes. The store's checksums find a torn or damaged entry: it is deleted and
// the source converted again, never packed.
//
// A source with an artist's .tx beside it (`foo.tx` or `foo.png.tx`, not older than `foo.png`: the
// rule the engine and the CLI follow) is cooked from that .tx, after checking that every tile of
// every level reads; a broken one is an error naming it, never a silent fallback to the source.
//
// Thread-safety: get() may be called from several threads at once (the cook's worker pool);
// several processes may share the store.

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <vector>

#include "kiln/cache/blob_store.h"
#include "kiln/cache/hash.h"
#include "kiln/core/result.h"
#include "kiln/textures/texture_settings.h"

namespace kiln::cook {

class TextureConversions {
 public:
  // `store` may be null: every texture is then converted afresh and nothing is kept.
  explicit TextureConversions(cache::BlobStore* store);

  struct Tx {
    std::vector<std::byte> bytes;
    bool converted = false;           // false: a cached conversion or the artist's .tx served it
    std::filesystem::path artist_tx;  // the .tx beside the source that served it, if any
    cache::Hash128 made_from;         // the XXH3-128 of the file read (the source, or the artist's .tx)
  };
  // The .tx of `source` converted with `settings` (part of the key); errors name the source (or its
  // .tx). `verify`: a cached conversion is also made again and must be byte-identical; a differing
  // one is replaced by the fresh conversion. An artist's .tx is taken as it is.
  Result<Tx> get(const std::filesystem::path& source, const textures::TextureSettings& settings, bool verify = false);
  std::size_t discarded() const { return discarded_.load(); }  // cached conversions that failed their check
  // The cache namespace the conversions are kept under (it names their build and versions); none
  // without a store.
  const std::optional<cache::BlobNamespace>& cache_namespace() const { return ns_; }

 private:
  cache::BlobStore* store_;
  std::optional<cache::BlobNamespace> ns_;
  std::atomic<std::size_t> discarded_{0};
};

}  // namespace kiln::cook
