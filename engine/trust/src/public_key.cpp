#include "kiln/trust/public_key.h"

#include <nettle/base64.h>
#include <nettle/eddsa.h>
#include <nettle/sha2.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "kiln/core/input_limits.h"
#include "kiln/core/runtime_library.h"
#include "kiln/core/text.h"

namespace kiln::trust {
namespace {

constexpr std::string_view kBegin = "-----BEGIN PUBLIC KEY-----";
constexpr std::string_view kEnd = "-----END PUBLIC KEY-----";
// The DER SubjectPublicKeyInfo of an Ed25519 key (RFC 8410) before its 32 raw bytes.
constexpr std::uint8_t kSpkiPrefix[] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};
constexpr std::size_t kSpkiBytes = sizeof kSpkiPrefix + kPublicKeyBytes;

}  // namespace

std::string PublicKey::id() const {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, raw.size(), raw.data());
  std::uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  return hex_bytes(std::span<const std::uint8_t>(digest, 8));
}

Result<PublicKey> parse_public_key(std::string_view pem, const std::string& where) {
  const auto begin = pem.find(kBegin);
  const auto end = begin == std::string_view::npos ? begin : pem.find(kEnd, begin);
  if (begin == std::string_view::npos || end == std::string_view::npos) {
    if (pem.find("PRIVATE KEY") != std::string_view::npos)
      return make_error(where + ": a private key, not a public one (give the .pub file)");
    return make_error(where + ": not a PEM public key (expected " + std::string(kBegin) + ")");
  }
  std::string base64;
  for (char c : pem.substr(begin + kBegin.size(), end - begin - kBegin.size()))
    if (c != '\n' && c != '\r' && c != ' ' && c != '\t') base64 += c;
  // An Ed25519 key's DER is 44 bytes, 60 in base64: anything longer is another kind of key, and is
  // refused before it is decoded (the decoder writes as much as the text holds).
  if (base64.size() > BASE64_ENCODE_RAW_LENGTH(kSpkiBytes))
    return make_error(where + ": not an Ed25519 public key (kiln key generate writes one)");
  std::uint8_t der[BASE64_DECODE_LENGTH(BASE64_ENCODE_RAW_LENGTH(kSpkiBytes))];
  std::size_t length = sizeof der;
  base64_decode_ctx ctx;
  base64_decode_init(&ctx);
  const bool decoded =
      base64_decode_update(&ctx, &length, der, base64.size(), base64.data()) && base64_decode_final(&ctx);
  if (!decoded) return make_error(where + ": the PEM body is not valid base64");
  if (length != kSpkiBytes || std::memcmp(der, kSpkiPrefix, sizeof kSpkiPrefix) != 0)
    return make_error(where + ": not an Ed25519 public key (kiln key generate writes one)");
  PublicKey key;
  std::memcpy(key.raw.data(), der + sizeof kSpkiPrefix, kPublicKeyBytes);
  return key;
}

Result<PublicKey> read_public_key(const std::filesystem::path& path) {
  auto text = read_input_file(path, 64 * 1024, "public key");
  if (!text) return text.error();
  return parse_public_key(*text, path.string());
}

std::string public_key_pem(const PublicKey& key) {
  std::uint8_t der[kSpkiBytes];
  std::memcpy(der, kSpkiPrefix, sizeof kSpkiPrefix);
  std::memcpy(der + sizeof kSpkiPrefix, key.raw.data(), kPublicKeyBytes);
  char base64[BASE64_ENCODE_RAW_LENGTH(kSpkiBytes)];
  base64_encode_raw(base64, sizeof der, der);
  return std::string(kBegin) + "\n" + std::string(base64, sizeof base64) + "\n" + std::string(kEnd) + "\n";
}

namespace {

using Ed25519Verify = decltype(&::nettle_ed25519_sha512_verify);

// Nettle's public-key half (libhogweed, and GMP behind it), loaded when a signature is first
// checked: linked, both would be mapped and relocated by every cook, editor and game start, though
// only a set that must be signed is checked.
Result<Ed25519Verify> ed25519_verify() {
  static const Result<Ed25519Verify> loaded = []() -> Result<Ed25519Verify> {
    auto library = RuntimeLibrary::open("libhogweed.so.6", "Nettle's libhogweed (to check signatures)");
    if (!library) return library.error();
    Ed25519Verify verify = nullptr;
    library->bind(verify, "nettle_ed25519_sha512_verify");
    KILN_TRY(library->complete());
    return verify;
  }();
  return loaded;
}

}  // namespace

Result<bool> verify_signature(const PublicKey& key, std::span<const std::byte> message, const Signature& signature) {
  auto verify = ed25519_verify();
  if (!verify) return verify.error();
  return (*verify)(key.raw.data(), message.size(), reinterpret_cast<const std::uint8_t*>(message.data()),
                   signature.data()) == 1;
}

}  // namespace kiln::trust
