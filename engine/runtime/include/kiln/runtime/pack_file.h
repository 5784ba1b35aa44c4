#pragma once
// PackFile: a pack read one payload at a time, for a tool that takes some entries of a large pack
// without holding it in memory (a cook copying the variants that did not change from the set it
// replaces). Opening reads and checks the header, the index and the names, as Pack::open does;
// read() reads one payload with pread and checks it against its index entry. The padding between
// payloads is not read, so not checked: what a game loads goes through Pack. Nothing is mapped: a
// file truncated or rewritten under it gives an error from read(), never a crash.
//
// Thread-safety: read() may be called from any thread at once (pread on one descriptor).

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/pack.h"

namespace kiln::runtime {

class PackFile {
 public:
  static Result<std::unique_ptr<PackFile>> open(const std::filesystem::path& path, PackKind kind);
  ~PackFile();
  PackFile(const PackFile&) = delete;
  PackFile& operator=(const PackFile&) = delete;

  const std::string& identity() const { return identity_; }
  std::uint64_t checksum() const { return checksum_; }  // the header's: stands for the whole pack
  std::size_t size() const { return count_; }
  // The payload of `name`: nullopt when the pack has no such entry; an error naming the pack and
  // the entry when it cannot be read whole or its bytes are corrupt.
  Result<std::optional<std::vector<std::byte>>> read(std::string_view name) const;

 private:
  PackFile() = default;
  std::string name_;
  int fd_ = -1;
  std::vector<std::byte> meta_;  // the file's bytes before its first payload
  std::size_t count_ = 0;
  std::string identity_;
  std::uint64_t checksum_ = 0;
};

}  // namespace kiln::runtime
