#pragma once
// The deterministic blobs the multi-process tests write: key and payload follow from an index, so
// any process can check what any other wrote.

#include <cstdint>
#include <string>

#include "kiln/cache/blob_store.h"

namespace kiln::test {

inline cache::BlobKey pattern_key(std::uint64_t i) { return {cache::xxh3_128("pattern-blob-" + std::to_string(i))}; }

// 1 byte to 64 KiB; the first 8 bytes are the index, the rest a xorshift stream seeded by it.
inline cache::Bytes pattern_payload(std::uint64_t i) {
  const std::size_t size = 8 + (i * 7919u) % (64u * 1024u - 8u);
  cache::Bytes out(size);
  for (int b = 0; b < 8; ++b) out[b] = static_cast<std::byte>(i >> (8 * b));
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + 1;
  for (std::size_t k = 8; k < size; ++k) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[k] = static_cast<std::byte>(x);
  }
  return out;
}

}  // namespace kiln::test
