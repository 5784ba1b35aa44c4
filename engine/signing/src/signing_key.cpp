#include "kiln/signing/signing_key.h"

#include <string.h>  // explicit_bzero
#include <unistd.h>

#include <cstdio>
#include <string>
#include <string_view>

#include "kiln/trust/secret_file.h"
#include "libcrypto.h"

namespace kiln::signing {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kMaxKeyFileBytes = 64 * 1024;

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { crypto().pkey_free(p); }
};
struct BioFree {
  void operator()(BIO* b) const { crypto().bio_free(b); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { crypto().md_ctx_free(c); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using Bio = std::unique_ptr<BIO, BioFree>;

// OpenSSL's last error, for a message.
std::string openssl_error() {
  const unsigned long code = crypto().err_get_error();
  crypto().err_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  crypto().err_error_string_n(code, text, sizeof text);
  return text;
}

Result<trust::PublicKey> raw_public_key(EVP_PKEY* pkey, const std::string& where) {
  trust::PublicKey key;
  std::size_t length = key.raw.size();
  if (crypto().pkey_get_raw_public_key(pkey, key.raw.data(), &length) != 1 || length != key.raw.size())
    return make_error(where + ": cannot read the public key: " + openssl_error());
  return key;
}

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long n = crypto().bio_ctrl(bio, BIO_CTRL_INFO, 0, &data);  // BIO_get_mem_data
  return n > 0 ? std::string(data, std::size_t(n)) : std::string();
}

// An encrypted key would make OpenSSL ask for a passphrase on the terminal: refused instead.
int no_passphrase(char*, int, int, void*) { return -1; }

}  // namespace

struct SigningKey::Impl {
  Pkey pkey;
};

Result<trust::PublicKey> generate_key_pair(const fs::path& file) {
  const fs::path pub = fs::path(file.string() + ".pub");
  std::error_code ec;
  if (fs::exists(pub, ec)) return make_error(pub.string() + ": already exists (a key is never overwritten)");
  auto lib = libcrypto();
  if (!lib) return lib.error();
  const Libcrypto& c = **lib;
  Pkey pkey(c.pkey_q_keygen(nullptr, nullptr, "ED25519"));
  if (!pkey) return make_error("cannot generate an Ed25519 key: " + openssl_error());
  Bio private_pem(c.bio_new(c.bio_s_mem())), public_pem(c.bio_new(c.bio_s_mem()));
  if (!private_pem || !public_pem ||
      c.pem_write_private_key(private_pem.get(), pkey.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1 ||
      c.pem_write_public_key(public_pem.get(), pkey.get()) != 1)
    return make_error("cannot encode the key: " + openssl_error());
  auto key = raw_public_key(pkey.get(), file.string());
  if (!key) return key.error();
  std::string private_text = bio_text(private_pem.get());
  const Status written = trust::write_secret_file(file, "the signing key", private_text);
  explicit_bzero(private_text.data(), private_text.size());
  if (!written) return written.error();
  // The public half is for everyone: written plainly beside the key, never over another file.
  const std::string public_text = bio_text(public_pem.get());
  const fs::path temp = pub.parent_path() / (".tmp.pub." + std::to_string(::getpid()));
  FILE* out = std::fopen(temp.c_str(), "wx");
  const bool ok =
      out && std::fwrite(public_text.data(), 1, public_text.size(), out) == public_text.size() && std::fflush(out) == 0;
  if (out) std::fclose(out);
  if (!ok || (fs::create_hard_link(temp, pub, ec), ec)) {
    fs::remove(temp, ec);
    fs::remove(file, ec);  // no private key without its public half
    return make_error(pub.string() + ": cannot write the public key");
  }
  fs::remove(temp, ec);
  return key;
}

Status generate_remote_key(const fs::path& file) {
  auto bytes = trust::random_bytes(32);
  if (!bytes) return bytes.error();
  std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  explicit_bzero(bytes->data(), bytes->size());
  Status written = trust::write_secret_file(file, "the remote cache key", text);
  explicit_bzero(text.data(), text.size());
  return written;
}

Result<SigningKey> SigningKey::load(const fs::path& file) {
  auto bytes = trust::read_secret_file(file, "the signing key", kMaxKeyFileBytes);
  if (!bytes) return bytes.error();
  auto lib = libcrypto();
  if (!lib) return lib.error();
  const Libcrypto& c = **lib;
  Bio bio(c.bio_new_mem_buf(bytes->data(), int(bytes->size())));
  Pkey pkey(bio ? c.pem_read_private_key(bio.get(), nullptr, &no_passphrase, nullptr) : nullptr);
  const bool is_public =
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()).find("BEGIN PUBLIC KEY") !=
      std::string_view::npos;
  explicit_bzero(bytes->data(), bytes->size());
  if (!pkey) {
    const std::string why = openssl_error();
    return make_error(file.string() + ": not an unencrypted PEM private key" +
                      (is_public ? " (it is a public key: sign with the private one)" : " (" + why + ")"));
  }
  if (c.pkey_get_id(pkey.get()) != EVP_PKEY_ED25519)
    return make_error(file.string() + ": not an Ed25519 key (kiln key generate writes one)");
  auto key = raw_public_key(pkey.get(), file.string());
  if (!key) return key.error();
  auto impl = std::make_unique<Impl>();
  impl->pkey = std::move(pkey);
  return SigningKey(std::move(impl), *key);
}

SigningKey::SigningKey(std::unique_ptr<Impl> impl, trust::PublicKey key) : impl_(std::move(impl)), public_key_(key) {}
SigningKey::SigningKey(SigningKey&&) noexcept = default;
SigningKey& SigningKey::operator=(SigningKey&&) noexcept = default;
SigningKey::~SigningKey() = default;

Result<trust::Signature> SigningKey::sign(std::span<const std::byte> message) const {
  const Libcrypto& c = crypto();  // loaded: this key was read through it
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(c.md_ctx_new());
  trust::Signature signature{};
  std::size_t length = signature.size();
  if (!ctx || c.digest_sign_init(ctx.get(), nullptr, nullptr, nullptr, impl_->pkey.get()) != 1 ||
      c.digest_sign(ctx.get(), signature.data(), &length, reinterpret_cast<const unsigned char*>(message.data()),
                    message.size()) != 1 ||
      length != signature.size())
    return make_error("cannot sign: " + openssl_error());
  return signature;
}

}  // namespace kiln::signing
