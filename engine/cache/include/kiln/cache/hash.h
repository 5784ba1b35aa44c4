#pragma once
// Content hashes. XXH3 (64/128) is the fast hash for cache keys and checksums; SHA-256 is for
// digests that must match other tools (the variant digest, reports).
//
// Thread-safety: pure functions; Xxh3Stream and Sha256Stream are single-threaded.

#include <cstddef>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace kiln::cache {

struct Hash128 {
  std::uint64_t high = 0;
  std::uint64_t low = 0;

  // 32 lowercase hex characters, high half first (the order `xxhsum -H2` prints).
  std::string hex() const;
  friend bool operator==(const Hash128&, const Hash128&) = default;
};

std::uint64_t xxh3_64(std::span<const std::byte> data);
std::uint64_t xxh3_64(std::string_view data);
Hash128 xxh3_128(std::span<const std::byte> data);
Hash128 xxh3_128(std::string_view data);
// XXH3-128 with a seed: keys that must differ by a small value hashed with the data.
Hash128 xxh3_128(std::span<const std::byte> data, std::uint64_t seed);
// XXH3-64 of the concatenation of `pieces`, without copying them together.
std::uint64_t xxh3_64(std::initializer_list<std::span<const std::byte>> pieces);

// Incremental XXH3-128 over several pieces: the same result as hashing their concatenation.
class Xxh3Stream {
 public:
  Xxh3Stream();
  ~Xxh3Stream();
  Xxh3Stream(const Xxh3Stream&) = delete;
  Xxh3Stream& operator=(const Xxh3Stream&) = delete;

  Xxh3Stream& update(std::span<const std::byte> data);
  Xxh3Stream& update(std::string_view data);
  Hash128 digest128() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// 64 lowercase hex characters of SHA-256.
std::string sha256_hex(std::string_view data);
std::string sha256_hex(std::span<const std::byte> data);

// Incremental SHA-256: the same digest as sha256_hex of the pieces' concatenation.
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;

  Sha256Stream& update(std::span<const std::byte> data);
  std::string hex();  // ends the stream

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// UMAC-128 (RFC 4418) of `data` under `key` and `nonce` (up to 16 bytes; more are ignored): proves
// who wrote a blob, where a checksum proves only that it is intact. A nonce must never be used twice
// under one key (a random one per message: its 16 bytes make a repeat as unlikely as a guessed key).
inline constexpr std::size_t kUmacKeyBytes = 16;
std::array<std::uint8_t, 16> umac128(std::span<const std::byte, kUmacKeyBytes> key, std::span<const std::byte> nonce,
                                     std::span<const std::byte> data);

// 16 lowercase hex characters.
std::string hex64(std::uint64_t value);

}  // namespace kiln::cache
