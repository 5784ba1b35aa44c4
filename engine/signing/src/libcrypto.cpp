#include "libcrypto.h"

#include <cassert>

#include "kiln/core/runtime_library.h"

namespace kiln::signing {
namespace {

// The soname of OpenSSL 3's ABI, the one the headers describe.
constexpr const char* kLibcryptoSoname = "libcrypto.so.3";

Libcrypto g_library;

Result<const Libcrypto*> load() {
  auto library = RuntimeLibrary::open(kLibcryptoSoname, "OpenSSL's libcrypto (for keys and signing)");
  if (!library) return library.error();
  Libcrypto& l = g_library;
  library->bind(l.bio_new, "BIO_new");
  library->bind(l.bio_s_mem, "BIO_s_mem");
  library->bind(l.bio_new_mem_buf, "BIO_new_mem_buf");
  library->bind(l.bio_ctrl, "BIO_ctrl");
  library->bind(l.bio_free, "BIO_free");
  library->bind(l.err_get_error, "ERR_get_error");
  library->bind(l.err_clear_error, "ERR_clear_error");
  library->bind(l.err_error_string_n, "ERR_error_string_n");
  library->bind(l.pkey_q_keygen, "EVP_PKEY_Q_keygen");
  library->bind(l.pkey_free, "EVP_PKEY_free");
  library->bind(l.pkey_get_id, "EVP_PKEY_get_id");
  library->bind(l.pkey_get_raw_public_key, "EVP_PKEY_get_raw_public_key");
  library->bind(l.md_ctx_new, "EVP_MD_CTX_new");
  library->bind(l.md_ctx_free, "EVP_MD_CTX_free");
  library->bind(l.digest_sign_init, "EVP_DigestSignInit");
  library->bind(l.digest_sign, "EVP_DigestSign");
  library->bind(l.pem_read_private_key, "PEM_read_bio_PrivateKey");
  library->bind(l.pem_write_private_key, "PEM_write_bio_PrivateKey");
  library->bind(l.pem_write_public_key, "PEM_write_bio_PUBKEY");
  if (Status complete = library->complete(); !complete) return complete.error();
  return &g_library;
}

}  // namespace

Result<const Libcrypto*> libcrypto() {
  static const Result<const Libcrypto*> loaded = load();
  return loaded;
}

const Libcrypto& crypto() {
  assert(libcrypto().ok());
  return g_library;
}

}  // namespace kiln::signing
