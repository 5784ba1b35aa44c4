#pragma once
// Ed25519 public keys and signature checks. A key file is PEM (`-----BEGIN PUBLIC KEY-----`, the
// SubjectPublicKeyInfo OpenSSL writes and reads), so `openssl pkey -pubin` reads what
// `kiln key generate` writes. A key is named by its id: the first 8 bytes of the SHA-256 of its 32
// raw bytes, as 16 hex digits (what manifests and messages print; never the key itself).
//
// Thread-safety: plain values and pure functions.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "kiln/core/result.h"

namespace kiln::trust {

inline constexpr std::size_t kPublicKeyBytes = 32;
inline constexpr std::size_t kSignatureBytes = 64;
using Signature = std::array<std::uint8_t, kSignatureBytes>;

struct PublicKey {
  std::array<std::uint8_t, kPublicKeyBytes> raw{};
  std::string id() const;  // 16 hex digits
  friend bool operator==(const PublicKey&, const PublicKey&) = default;
};

// The key of a PEM text; errors name `where` and what is wrong (not PEM, not Ed25519).
Result<PublicKey> parse_public_key(std::string_view pem, const std::string& where);
// The key in `path` (a regular file of at most 64 KiB).
Result<PublicKey> read_public_key(const std::filesystem::path& path);
// The PEM text of `key`, as OpenSSL writes it.
std::string public_key_pem(const PublicKey& key);

// Whether `signature` is `key`'s Ed25519 signature (RFC 8032) of `message`; an error when the
// verifier (Nettle's libhogweed, loaded on first use) cannot be loaded.
Result<bool> verify_signature(const PublicKey& key, std::span<const std::byte> message, const Signature& signature);

}  // namespace kiln::trust
