// What trust costs, side by side with OpenSSL in the same process: SHA-256 of a whole pack (what a
// player under a trust policy hashes at start), one Ed25519 signature check (one per set), and
// the HMAC-SHA256 tag of one remote cache entry at the sizes Kiln sends (made on upload, checked on
// every remote hit). Kiln verifies and tags with Nettle; OpenSSL's EVP is the anchor.
//   build/release/bench/bench_trust
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <unistd.h>

#include <algorithm>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "kiln/cache/hash.h"
#include "kiln/signing/signing_key.h"
#include "kiln/trust/hmac.h"
#include "kiln/trust/public_key.h"

using namespace kiln;
using Clock = std::chrono::steady_clock;

namespace {

// Seconds per call: the median of 7 rounds, each long enough to time (at least 0.2 s).
double seconds_per_call(const std::function<void()>& call) {
  std::size_t n = 1;
  for (;;) {
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < n; ++i) call();
    if (std::chrono::duration<double>(Clock::now() - t0).count() > 0.2) break;
    n *= 2;
  }
  std::vector<double> rounds;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < n; ++i) call();
    rounds.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / double(n));
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[3];
}

std::vector<std::byte> pattern(std::size_t n) {
  std::vector<std::byte> out(n);
  std::uint32_t x = 12345;
  for (auto& b : out) b = std::byte((x = x * 1664525 + 1013904223) >> 24);
  return out;
}

void openssl_sha256(std::span<const std::byte> data) {
  unsigned char md[32];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
}

}  // namespace

int main() {
  std::printf("| what | Kiln (Nettle) | OpenSSL (EVP) | Kiln / OpenSSL time |\n| --- | --- | --- | --- |\n");
  const auto pack = pattern(64u << 20);
  const double kiln_sha = seconds_per_call([&] { (void)cache::sha256_hex(std::span<const std::byte>(pack)); });
  const double openssl_sha = seconds_per_call([&] { openssl_sha256(pack); });
  std::printf("| SHA-256 of a 64 MiB pack | %.0f MB/s | %.0f MB/s | %.2f |\n", double(pack.size()) / kiln_sha / 1e6,
              double(pack.size()) / openssl_sha / 1e6, kiln_sha / openssl_sha);

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("bench-trust-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto made = signing::generate_key_pair(dir / "k");
  auto key = signing::SigningKey::load(dir / "k");
  if (!made || !key) return std::fprintf(stderr, "bench_trust: no key\n"), 1;
  const std::string manifest(1200, 'm');  // a manifest's signed text is about this long
  const auto message = std::as_bytes(std::span(manifest));
  auto signature = key->sign(message);
  EVP_PKEY* pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, made->raw.data(), made->raw.size());
  const double kiln_verify = seconds_per_call([&] { (void)trust::verify_signature(*made, message, *signature); });
  const double openssl_verify = seconds_per_call([&] {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, pkey);
    (void)EVP_DigestVerify(ctx, signature->data(), signature->size(),
                           reinterpret_cast<const unsigned char*>(message.data()), message.size());
    EVP_MD_CTX_free(ctx);
  });
  std::printf("| Ed25519 check of a manifest (once per set) | %.1f us | %.1f us | %.2f |\n", kiln_verify * 1e6,
              openssl_verify * 1e6, kiln_verify / openssl_verify);
  const double sign = seconds_per_call([&] { (void)key->sign(message); });
  std::printf("| Ed25519 signature (once per cook, OpenSSL in both) | %.1f us | %.1f us | 1.00 |\n", sign * 1e6,
              sign * 1e6);
  EVP_PKEY_free(pkey);
  std::filesystem::remove_all(dir);

  trust::HmacKey hmac_key;
  for (std::size_t i = 0; i < hmac_key.size(); ++i) hmac_key[i] = std::byte(i);
  EVP_MAC* hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  const std::string name = "kiln/shaders/0123456789abcdef/0123456789abcdef0123456789abcdef";
  for (const std::size_t size : {std::size_t(2) << 10, std::size_t(16) << 10, std::size_t(256) << 10}) {
    const auto entry = pattern(size);
    const double kiln_tag = seconds_per_call([&] {
      (void)trust::hmac_sha256(hmac_key, {std::as_bytes(std::span(name)), std::span<const std::byte>(entry)});
    });
    const double openssl_tag = seconds_per_call([&] {
      unsigned char md[32];
      std::size_t len = 0;
      char digest[] = "SHA256";
      const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                   OSSL_PARAM_construct_end()};
      EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(hmac);
      EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(hmac_key.data()), hmac_key.size(), params);
      EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(name.data()), name.size());
      EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(entry.data()), entry.size());
      EVP_MAC_final(ctx, md, &len, sizeof md);
      EVP_MAC_CTX_free(ctx);
    });
    std::printf("| HMAC-SHA256 tag of a %zu KiB remote entry | %.1f us | %.1f us | %.2f |\n", size >> 10,
                kiln_tag * 1e6, openssl_tag * 1e6, kiln_tag / openssl_tag);
  }
  EVP_MAC_free(hmac);
  return 0;
}
