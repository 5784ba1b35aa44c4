#pragma once
// PayloadSpill: the payloads a PackWriter was given, kept in the order added until the pack is
// written. Small sets stay in memory; past kSpillAfterBytes they move to an anonymous temp file
// (unlinked at once, so a killed cook leaves nothing), which keeps a cook's memory flat in the
// size of what it packs: it holds an index, not the blobs.
//
// Thread-safety: owned by one thread.

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::runtime {

class PayloadSpill {
 public:
  static constexpr std::size_t kSpillAfterBytes = std::size_t{8} << 20;

  PayloadSpill() = default;
  ~PayloadSpill();
  PayloadSpill(const PayloadSpill&) = delete;
  PayloadSpill& operator=(const PayloadSpill&) = delete;

  // Where the bytes went: an offset for read(). A failure to spill is kept and returned by read()
  // and error(), so that adding stays cheap and the pack's writer says it once.
  std::uint64_t append(std::span<const std::byte> bytes);
  // Calls `sink` with the bytes at [offset, offset + length), in pieces of at most 1 MiB.
  template <class Sink>
  Status read(std::uint64_t offset, std::uint64_t length, Sink&& sink) const {
    if (!error_.empty()) return make_error(error_);
    if (fd_ < 0) {
      sink(std::span<const std::byte>(memory_.data() + offset, length));
      return {};
    }
    std::vector<std::byte>& buffer = buffer_;
    while (length > 0) {
      const std::size_t n = std::size_t(std::min<std::uint64_t>(length, std::uint64_t{1} << 20));
      buffer.resize(n);
      KILN_TRY(read_at(offset, buffer));
      sink(std::span<const std::byte>(buffer));
      offset += n;
      length -= n;
    }
    return {};
  }
  const std::string& error() const { return error_; }
  bool on_disk() const { return fd_ >= 0; }

 private:
  Status read_at(std::uint64_t offset, std::span<std::byte> into) const;
  bool spill_to_file();
  bool write_all(std::span<const std::byte> bytes);

  std::vector<std::byte> memory_;  // before spilling
  int fd_ = -1;                    // after: an unlinked temp file
  std::uint64_t size_ = 0;
  std::string error_;
  bool spill_failed_ = false;
  mutable std::vector<std::byte> buffer_;
};

}  // namespace kiln::runtime
