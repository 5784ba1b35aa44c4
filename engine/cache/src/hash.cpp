#include "kiln/cache/hash.h"

// OpenSSL 3 marks the SHA-256 functions deprecated in favour of EVP; see sha256_hex for why they
// are used.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace kiln::cache {
namespace {

std::span<const std::byte> bytes_of(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }

}  // namespace

std::string hex64(std::uint64_t value) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value));
  return buf;
}

std::string Hash128::hex() const { return hex64(high) + hex64(low); }

std::uint64_t xxh3_64(std::span<const std::byte> data) { return XXH3_64bits(data.data(), data.size()); }
std::uint64_t xxh3_64(std::string_view data) { return xxh3_64(bytes_of(data)); }

Hash128 xxh3_128(std::span<const std::byte> data) {
  XXH128_hash_t h = XXH3_128bits(data.data(), data.size());
  return {h.high64, h.low64};
}
Hash128 xxh3_128(std::string_view data) { return xxh3_128(bytes_of(data)); }

Hash128 xxh3_128(std::span<const std::byte> data, std::uint64_t seed) {
  XXH128_hash_t h = XXH3_128bits_withSeed(data.data(), data.size(), seed);
  return {h.high64, h.low64};
}

std::uint64_t xxh3_64(std::initializer_list<std::span<const std::byte>> pieces) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  for (std::span<const std::byte> piece : pieces) XXH3_64bits_update(state, piece.data(), piece.size());
  const std::uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return h;
}

struct Xxh3Stream::State {
  XXH3_state_t* state = XXH3_createState();
  ~State() { XXH3_freeState(state); }
};

Xxh3Stream::Xxh3Stream() : state_(std::make_unique<State>()) { XXH3_128bits_reset(state_->state); }
Xxh3Stream::~Xxh3Stream() = default;

Xxh3Stream& Xxh3Stream::update(std::span<const std::byte> data) {
  XXH3_128bits_update(state_->state, data.data(), data.size());
  return *this;
}
Xxh3Stream& Xxh3Stream::update(std::string_view data) { return update(bytes_of(data)); }

Hash128 Xxh3Stream::digest128() const {
  XXH128_hash_t h = XXH3_128bits_digest(state_->state);
  return {h.high64, h.low64};
}

// SHA-256 and HMAC-SHA256 use OpenSSL's SHA-256 functions directly rather than its EVP interface:
// the first EVP fetch in a process initialises OpenSSL's providers and reads its configuration
// (about 2 ms here), more than all the page loads of a warm script run; these functions run the
// same code (the CPU's SHA extensions where present) without that set-up.

std::string sha256_hex(std::span<const std::byte> data) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), md);
  static const char* digits = "0123456789abcdef";
  std::string out(2 * sizeof md, '0');
  for (std::size_t i = 0; i < sizeof md; ++i) {
    out[2 * i] = digits[md[i] >> 4];
    out[2 * i + 1] = digits[md[i] & 15];
  }
  return out;
}
std::string sha256_hex(std::string_view data) { return sha256_hex(bytes_of(data)); }

namespace {

constexpr std::size_t kSha256Block = 64;

// HMAC (RFC 2104) keyed once per thread for the last key used: the inner and outer states after
// their padded key block are kept, and each MAC continues copies of them.
struct KeyedHmac {
  std::vector<std::byte> key;
  SHA256_CTX inner{}, outer{};
  bool keyed = false;

  void use(std::span<const std::byte> want) {
    if (keyed && key.size() == want.size() && std::equal(want.begin(), want.end(), key.begin())) return;
    key.assign(want.begin(), want.end());
    unsigned char block[kSha256Block] = {};
    if (want.size() > kSha256Block)
      SHA256(reinterpret_cast<const unsigned char*>(want.data()), want.size(), block);
    else
      std::memcpy(block, want.data(), want.size());
    unsigned char pad[kSha256Block];
    for (std::size_t i = 0; i < kSha256Block; ++i) pad[i] = block[i] ^ 0x36;
    SHA256_Init(&inner);
    SHA256_Update(&inner, pad, sizeof pad);
    for (std::size_t i = 0; i < kSha256Block; ++i) pad[i] = block[i] ^ 0x5c;
    SHA256_Init(&outer);
    SHA256_Update(&outer, pad, sizeof pad);
    keyed = true;
  }
};

}  // namespace

std::array<std::uint8_t, 32> hmac_sha256(std::span<const std::byte> key, std::span<const std::byte> data) {
  thread_local KeyedHmac keyed;
  keyed.use(key);
  unsigned char inner_digest[SHA256_DIGEST_LENGTH];
  SHA256_CTX ctx = keyed.inner;
  SHA256_Update(&ctx, data.data(), data.size());
  SHA256_Final(inner_digest, &ctx);
  std::array<std::uint8_t, 32> out{};
  ctx = keyed.outer;
  SHA256_Update(&ctx, inner_digest, sizeof inner_digest);
  SHA256_Final(out.data(), &ctx);
  return out;
}

}  // namespace kiln::cache
