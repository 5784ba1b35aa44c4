#pragma once
// The cook's .tx conversions, cached under the texture cache directory as
// `cook-v2-<xxh3-128 of the source>-<xxh3-64 of the .tx>.tx`. The name binds the file to its source
// content and to its own bytes, so a torn, truncated or swapped file is found by hashing the bytes
// the cook reads anyway: it is deleted and converted again, never packed.
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
    bool converted = false;  // false: a cached conversion served it
  };
  // The .tx of `source`; errors name the source.
  Result<Tx> get(const std::filesystem::path& source);
  std::size_t discarded() const { return discarded_; }  // cached conversions that failed their check

 private:
  std::filesystem::path dir_;
  std::map<std::string, std::vector<std::filesystem::path>> cached_;  // source hash -> files
  std::size_t discarded_ = 0;
};

}  // namespace kiln::cook
