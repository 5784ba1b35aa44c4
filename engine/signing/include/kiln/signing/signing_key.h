#pragma once
// Ed25519 signing keys (OpenSSL EVP). `kiln key generate FILE` writes the private key as PKCS#8
// PEM to FILE (mode 0600) and its public key to FILE.pub (SubjectPublicKeyInfo PEM): files
// `openssl pkey` reads, and that the player's trust list (kiln::trust) names. A private key is
// used only while no one but its owner can read it.
//
// Thread-safety: a SigningKey may sign from any thread; the functions are independent.

#include <filesystem>
#include <memory>
#include <span>

#include "kiln/core/result.h"
#include "kiln/trust/public_key.h"

namespace kiln::signing {

// Writes a new key pair to `file` and `file`.pub; refuses to replace either. Returns the public key.
Result<trust::PublicKey> generate_key_pair(const std::filesystem::path& file);
// Writes 32 random bytes to `file` (mode 0600): a farm's key for its remote cache entries.
Status generate_remote_key(const std::filesystem::path& file);

class SigningKey {
 public:
  // The private key in `file` (PEM, unencrypted, Ed25519, mode 0600).
  static Result<SigningKey> load(const std::filesystem::path& file);
  SigningKey(SigningKey&&) noexcept;
  SigningKey& operator=(SigningKey&&) noexcept;
  ~SigningKey();

  const trust::PublicKey& public_key() const { return public_key_; }
  Result<trust::Signature> sign(std::span<const std::byte> message) const;

 private:
  struct Impl;
  explicit SigningKey(std::unique_ptr<Impl> impl, trust::PublicKey key);
  std::unique_ptr<Impl> impl_;
  trust::PublicKey public_key_;
};

}  // namespace kiln::signing
