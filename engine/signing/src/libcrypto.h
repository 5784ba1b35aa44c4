#pragma once
// OpenSSL's libcrypto, loaded when a key is made or a set is signed. Linked into the tools, it
// would be loaded and relocated by every cook and editor start (about a millisecond), though
// only `kiln key generate` and a signing cook use it.
//
// Thread-safety: libcrypto() may be called from any thread; it loads once and the table never
// changes afterwards.

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "kiln/core/result.h"

namespace kiln::signing {

// The functions Kiln uses, with libcrypto's own signatures.
struct Libcrypto {
  decltype(&::BIO_new) bio_new;
  decltype(&::BIO_s_mem) bio_s_mem;
  decltype(&::BIO_new_mem_buf) bio_new_mem_buf;
  decltype(&::BIO_ctrl) bio_ctrl;
  decltype(&::BIO_free) bio_free;
  decltype(&::ERR_get_error) err_get_error;
  decltype(&::ERR_clear_error) err_clear_error;
  decltype(&::ERR_error_string_n) err_error_string_n;
  decltype(&::EVP_PKEY_Q_keygen) pkey_q_keygen;
  decltype(&::EVP_PKEY_free) pkey_free;
  decltype(&::EVP_PKEY_get_id) pkey_get_id;
  decltype(&::EVP_PKEY_get_raw_public_key) pkey_get_raw_public_key;
  decltype(&::EVP_MD_CTX_new) md_ctx_new;
  decltype(&::EVP_MD_CTX_free) md_ctx_free;
  decltype(&::EVP_DigestSignInit) digest_sign_init;
  decltype(&::EVP_DigestSign) digest_sign;
  decltype(&::PEM_read_bio_PrivateKey) pem_read_private_key;
  decltype(&::PEM_write_bio_PrivateKey) pem_write_private_key;
  decltype(&::PEM_write_bio_PUBKEY) pem_write_public_key;
};

// The loaded library, or why it could not be loaded (not installed, a function missing).
Result<const Libcrypto*> libcrypto();

// The loaded library, for code that runs only after libcrypto() succeeded (freeing what it made).
const Libcrypto& crypto();

}  // namespace kiln::signing
