#include "kiln/trust/hmac.h"

#include <nettle/hmac.h>

#include <cstring>
#include <string.h>  // explicit_bzero

#include "kiln/trust/secret_file.h"

namespace kiln::trust {

HmacTag hmac_sha256(const HmacKey& key, std::initializer_list<std::span<const std::byte>> pieces) {
  hmac_sha256_ctx ctx;
  hmac_sha256_set_key(&ctx, key.size(), reinterpret_cast<const std::uint8_t*>(key.data()));
  for (const auto& piece : pieces)
    hmac_sha256_update(&ctx, piece.size(), reinterpret_cast<const std::uint8_t*>(piece.data()));
  HmacTag tag;
  hmac_sha256_digest(&ctx, tag.size(), tag.data());
  ::explicit_bzero(&ctx, sizeof ctx);  // it holds the key's pads
  return tag;
}

bool same_tag(std::span<const std::uint8_t, kHmacTagBytes> a, std::span<const std::uint8_t, kHmacTagBytes> b) {
  std::uint8_t differ = 0;
  for (std::size_t i = 0; i < kHmacTagBytes; ++i) differ |= std::uint8_t(a[i] ^ b[i]);
  return differ == 0;
}

Result<HmacKey> read_hmac_key(const std::filesystem::path& path) {
  auto bytes = read_secret_file(path, "the remote cache key", 4096);
  if (!bytes) return bytes.error();
  if (bytes->size() != kHmacKeyBytes) {
    ::explicit_bzero(bytes->data(), bytes->size());
    return make_error(path.string() + ": the remote cache key must be exactly 32 bytes (it has " +
                      std::to_string(bytes->size()) + "; kiln key generate --remote writes one)");
  }
  HmacKey key;
  std::memcpy(key.data(), bytes->data(), key.size());
  ::explicit_bzero(bytes->data(), bytes->size());
  return key;
}

Result<std::vector<HmacKey>> read_hmac_keys(const std::vector<std::filesystem::path>& paths) {
  std::vector<HmacKey> keys;
  for (const auto& path : paths) {
    auto key = read_hmac_key(path);
    if (!key) return key.error();
    keys.push_back(*key);
  }
  return keys;
}

}  // namespace kiln::trust
