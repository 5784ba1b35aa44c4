#include "kiln/cache/hash.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <xxhash.h>

#include <algorithm>
#include <cassert>
#include <cstdio>
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

std::string sha256_hex(std::span<const std::byte> data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // EVP_Digest fails only on allocation failure; that is a broken invariant, not bad input.
  [[maybe_unused]] int ok = EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  assert(ok == 1 && len == 32);
  static const char* digits = "0123456789abcdef";
  std::string out(2 * len, '0');
  for (unsigned int i = 0; i < len; ++i) {
    out[2 * i] = digits[md[i] >> 4];
    out[2 * i + 1] = digits[md[i] & 15];
  }
  return out;
}
std::string sha256_hex(std::string_view data) { return sha256_hex(bytes_of(data)); }

namespace {

// A keyed HMAC context kept per thread for the last key used: keying (hashing the padded key) and
// fetching the digest cost more than the MAC of a small blob; a copy of the keyed context costs
// little. Page loads on one thread all use one key.
struct KeyedHmac {
  std::vector<std::byte> key;
  EVP_MAC_CTX* ctx = nullptr;
  ~KeyedHmac() { EVP_MAC_CTX_free(ctx); }

  EVP_MAC_CTX* keyed(std::span<const std::byte> want) {
    if (ctx && key.size() == want.size() && std::equal(want.begin(), want.end(), key.begin())) return ctx;
    // Fetching the algorithm costs more than a small MAC: once per process (EVP_MAC is shareable).
    static EVP_MAC* const mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    EVP_MAC_CTX_free(ctx);
    ctx = mac ? EVP_MAC_CTX_new(mac) : nullptr;
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0), OSSL_PARAM_construct_end()};
    if (ctx && EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(want.data()), want.size(), params) != 1) {
      EVP_MAC_CTX_free(ctx);
      ctx = nullptr;
    }
    key.assign(want.begin(), want.end());
    return ctx;
  }
};

}  // namespace

std::array<std::uint8_t, 32> hmac_sha256(std::span<const std::byte> key, std::span<const std::byte> data) {
  std::array<std::uint8_t, 32> out{};
  thread_local KeyedHmac keyed;
  EVP_MAC_CTX* const base = keyed.keyed(key);
  EVP_MAC_CTX* const ctx = base ? EVP_MAC_CTX_dup(base) : nullptr;
  std::size_t len = 0;
  // These fail only on allocation failure; that is a broken invariant, not bad input.
  [[maybe_unused]] const bool ok =
      ctx && EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1 &&
      EVP_MAC_final(ctx, out.data(), &len, out.size()) == 1;
  assert(ok && len == 32);
  EVP_MAC_CTX_free(ctx);
  return out;
}

}  // namespace kiln::cache
