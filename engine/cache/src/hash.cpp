#include "kiln/cache/hash.h"

#include <nettle/sha2.h>
#include <nettle/umac.h>
#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack
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
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  for (std::span<const std::byte> piece : pieces) XXH3_64bits_update(&state, piece.data(), piece.size());
  return XXH3_64bits_digest(&state);
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

// SHA-256 and UMAC come from Nettle rather than OpenSSL: libcrypto costs every process that
// links it over a millisecond of start-up (its relocations and initialisation) and its EVP interface
// another ~2 ms on first use, more than all the page loads of a warm script run. Nettle runs the
// CPU's SHA extensions where present.

namespace {
std::string hex_of(const std::uint8_t* md, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = digits[md[i] >> 4];
    out[2 * i + 1] = digits[md[i] & 15];
  }
  return out;
}
}  // namespace

std::string sha256_hex(std::span<const std::byte> data) {
  Sha256Stream stream;
  return stream.update(data).hex();
}

struct Sha256Stream::State {
  sha256_ctx ctx;
};

Sha256Stream::Sha256Stream() : state_(std::make_unique<State>()) { sha256_init(&state_->ctx); }
Sha256Stream::~Sha256Stream() = default;

Sha256Stream& Sha256Stream::update(std::span<const std::byte> data) {
  sha256_update(&state_->ctx, data.size(), reinterpret_cast<const std::uint8_t*>(data.data()));
  return *this;
}

std::string Sha256Stream::hex() {
  std::uint8_t md[SHA256_DIGEST_SIZE];
  sha256_digest(&state_->ctx, sizeof md, md);
  return hex_of(md, sizeof md);
}
std::string sha256_hex(std::string_view data) { return sha256_hex(bytes_of(data)); }

namespace {

// UMAC keyed once per thread for the last key used (its set-up expands the key with AES: far more
// work than a page's MAC); each MAC continues a copy of the keyed state.
struct KeyedUmac {
  std::array<std::byte, kUmacKeyBytes> key{};
  umac128_ctx keyed{};
  bool set = false;

  const umac128_ctx& use(std::span<const std::byte, kUmacKeyBytes> want) {
    if (!set || !std::equal(want.begin(), want.end(), key.begin())) {
      std::copy(want.begin(), want.end(), key.begin());
      umac128_set_key(&keyed, reinterpret_cast<const std::uint8_t*>(key.data()));
      set = true;
    }
    return keyed;
  }
};

}  // namespace

std::array<std::uint8_t, 16> umac128(std::span<const std::byte, kUmacKeyBytes> key, std::span<const std::byte> nonce,
                                     std::span<const std::byte> data) {
  thread_local KeyedUmac keyed;
  umac128_ctx ctx = keyed.use(key);
  // Nettle takes 1 to 16 bytes: an empty nonce is one zero byte, a longer one its first 16.
  std::uint8_t nonce_bytes[16] = {};
  const std::size_t nonce_size = std::min<std::size_t>(nonce.size(), sizeof nonce_bytes);
  if (nonce_size != 0) std::memcpy(nonce_bytes, nonce.data(), nonce_size);
  umac128_set_nonce(&ctx, std::max<std::size_t>(nonce_size, 1), nonce_bytes);
  umac128_update(&ctx, data.size(), reinterpret_cast<const std::uint8_t*>(data.data()));
  std::array<std::uint8_t, 16> out{};
  umac128_digest(&ctx, out.size(), out.data());
  return out;
}

}  // namespace kiln::cache
