#pragma once
// The cook's .tx conversions, cached under the texture cache directory as
// `cook-v2-<xxh3-128 of the source>-<xxh3-64 of the .tx>.tx`. The name binds the file to its source
// content and to its own bytes, so a torn, truncated or swapped file is found by hashing the bytes
// the cook reads anyway: it is deleted and converted again, never packed.
//
// A source with an artist's .tx beside it (`foo.tx` or `foo.png.tx`, not older than `foo.png`: the
// rule the engine and the CLI follow) is cooked from that .tx, after checking that every tile of
// every level reads; a broken one is an error naming it, never a silent fallback to the source.
//
// Thread-safety: owned by the cook's thread; several processes may share the directory (files
// appear by rename, whole).

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::cook {

class TextureConversions {
 public:
  explicit TextureConversions(std::filesystem::path dir);  // lists the directory once

  struct Tx {
    std::vector<std::byte> bytes;
    bool converted = false;  // false: a cached conversion or the artist's .tx served it
    std::filesystem::path artist_tx;  // the .tx beside the source that served it, if any
  };
  // The .tx of `source`; errors name the source (or its .tx). `verify`: a cached conversion is also
  // made again and must be byte-identical.
  Result<Tx> get(const std::filesystem::path& source, bool verify = false);
  std::size_t discarded() const { return discarded_; }  // cached conversions that failed their check

 private:
  std::filesystem::path dir_;
  std::map<std::string, std::vector<std::filesystem::path>> cached_;  // source hash -> files
  std::size_t discarded_ = 0;
};

}  // namespace kiln::cook
