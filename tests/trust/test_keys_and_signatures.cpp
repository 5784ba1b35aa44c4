// Ed25519 keys and signatures, HMAC-SHA256 tags and the files that hold keys, checked against the
// openssl tool: what Kiln writes, OpenSSL reads and verifies; what OpenSSL makes, Kiln verifies.

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "child_process.h"
#include "kiln/signing/signing_key.h"
#include "kiln/trust/hmac.h"
#include "kiln/trust/public_key.h"
#include "kiln/trust/secret_file.h"
#include "kiln/trust/trust_policy.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

test::RunResult openssl(std::vector<std::string> args) {
  args.insert(args.begin(), "/usr/bin/openssl");
  return test::run_process(args);
}

std::span<const std::byte> bytes_of(const std::string& s) { return std::as_bytes(std::span(s)); }

std::string hex(std::span<const std::uint8_t> bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : bytes) out += {digits[b >> 4], digits[b & 15]};
  return out;
}

}  // namespace

TEST_SUITE("trust") {
  TEST_CASE("kiln's key pair is what openssl reads - and openssl verifies kiln's signature") {
    test::TempDir dir("trust");
    const fs::path key_file = dir / "release.key";
    auto made = signing::generate_key_pair(key_file);
    REQUIRE_MESSAGE(made, made.error().message);
    struct stat st;
    REQUIRE(::stat(key_file.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    // openssl derives from the private key the public key kiln wrote beside it.
    const auto derived = openssl({"pkey", "-in", key_file.string(), "-pubout"});
    REQUIRE_MESSAGE(derived.exit_code == 0, derived.output);
    CHECK(derived.output == test::slurp(key_file.string() + ".pub"));
    auto pub = trust::read_public_key(key_file.string() + ".pub");
    REQUIRE(pub);
    CHECK(*pub == *made);
    CHECK(pub->id().size() == 16);

    auto key = signing::SigningKey::load(key_file);
    REQUIRE_MESSAGE(key, key.error().message);
    const std::string message = "the manifest of a cooked set\n";
    auto signature = key->sign(bytes_of(message));
    REQUIRE(signature);
    test::spit(dir / "message", message);
    test::spit(dir / "signature", std::string(reinterpret_cast<const char*>(signature->data()), signature->size()));
    const auto verified = openssl({"pkeyutl", "-verify", "-pubin", "-inkey", key_file.string() + ".pub", "-rawin",
                                   "-in", (dir / "message").string(), "-sigfile", (dir / "signature").string()});
    CHECK_MESSAGE(verified.exit_code == 0, verified.output);
    CHECK(*trust::verify_signature(*pub, bytes_of(message), *signature));
    // One bit of the message or of the signature, and it no longer verifies.
    std::string changed = message;
    changed[3] ^= 1;
    CHECK_FALSE(*trust::verify_signature(*pub, bytes_of(changed), *signature));
    trust::Signature flipped = *signature;
    flipped[40] ^= 0x10;
    CHECK_FALSE(*trust::verify_signature(*pub, bytes_of(message), flipped));
  }

  TEST_CASE("a signature openssl makes is verified by kiln - with another key it is not") {
    test::TempDir dir("trust");
    for (const char* name : {"a", "b"}) {
      REQUIRE(openssl({"genpkey", "-algorithm", "ed25519", "-out", (dir / name).string()}).exit_code == 0);
      REQUIRE(openssl({"pkey", "-in", (dir / name).string(), "-pubout", "-out",
                       (dir / (std::string(name) + ".pub")).string()})
                  .exit_code == 0);
    }
    const std::string message(1000, 'k');
    test::spit(dir / "message", message);
    REQUIRE(openssl({"pkeyutl", "-sign", "-inkey", (dir / "a").string(), "-rawin", "-in", (dir / "message").string(),
                     "-out", (dir / "signature").string()})
                .exit_code == 0);
    const std::string sig_bytes = test::slurp(dir / "signature");
    REQUIRE(sig_bytes.size() == trust::kSignatureBytes);
    trust::Signature signature;
    std::memcpy(signature.data(), sig_bytes.data(), signature.size());
    auto a = trust::read_public_key(dir / "a.pub");
    auto b = trust::read_public_key(dir / "b.pub");
    REQUIRE(a);
    REQUIRE(b);
    CHECK(*trust::verify_signature(*a, bytes_of(message), signature));
    CHECK_FALSE(*trust::verify_signature(*b, bytes_of(message), signature));
    CHECK(a->id() != b->id());
    // The PEM kiln writes for a key is the one openssl wrote.
    CHECK(trust::public_key_pem(*a) == test::slurp(dir / "a.pub"));
    // A policy finds a key by its id and by nothing else.
    auto policy = trust::load_trust_policy({dir / "a.pub", dir / "b.pub"}, false);
    REQUIRE(policy);
    CHECK(policy->active());
    CHECK(policy->find(b->id()) != nullptr);
    CHECK(*policy->find(b->id()) == *b);
    CHECK(policy->find("0000000000000000") == nullptr);
  }

  TEST_CASE("a public key file that is a private key - another algorithm or not PEM is refused by name") {
    test::TempDir dir("trust");
    REQUIRE(openssl({"genpkey", "-algorithm", "ed25519", "-out", (dir / "ed.key").string()}).exit_code == 0);
    REQUIRE(openssl({"genpkey", "-algorithm", "x25519", "-out", (dir / "x.key").string()}).exit_code == 0);
    REQUIRE(openssl({"pkey", "-in", (dir / "x.key").string(), "-pubout", "-out", (dir / "x.pub").string()}).exit_code ==
            0);
    test::spit(dir / "garbage.pub", "-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n");
    test::spit(dir / "text.pub", "hello\n");
    // Longer than an Ed25519 key's 60 base64 characters: refused before it is decoded.
    test::spit(dir / "long.pub",
               "-----BEGIN PUBLIC KEY-----\n" + std::string(88, 'A') + "\n-----END PUBLIC KEY-----\n");
    REQUIRE(openssl({"genpkey", "-algorithm", "rsa", "-pkeyopt", "rsa_keygen_bits:1024", "-out",
                     (dir / "rsa.key").string()})
                .exit_code == 0);
    REQUIRE(
        openssl({"pkey", "-in", (dir / "rsa.key").string(), "-pubout", "-out", (dir / "rsa.pub").string()}).exit_code ==
        0);
    const std::pair<const char*, const char*> cases[] = {{"ed.key", "a private key, not a public one"},
                                                         {"x.pub", "not an Ed25519 public key"},
                                                         {"garbage.pub", "not valid base64"},
                                                         {"text.pub", "not a PEM public key"},
                                                         {"long.pub", "not an Ed25519 public key"},
                                                         {"rsa.pub", "not an Ed25519 public key"},
                                                         {"missing.pub", "missing.pub"}};
    for (const auto& item : cases) {
      const std::string file = item.first, expected = item.second;
      CAPTURE(file);
      auto key = trust::read_public_key(dir / file);
      REQUIRE_FALSE(key);
      CHECK_MESSAGE(key.error().message.find(expected) != std::string::npos, key.error().message);
      CHECK(key.error().message.find(file) != std::string::npos);
    }
    // A policy with one bad file is no policy: the error names the file.
    auto policy = trust::load_trust_policy({dir / "x.pub"}, false);
    REQUIRE_FALSE(policy);
    CHECK(policy.error().message.find("x.pub") != std::string::npos);
  }

  TEST_CASE("a private key others may read - an encrypted one or a public one is not used to sign") {
    test::TempDir dir("trust");
    const fs::path key_file = dir / "k";
    REQUIRE(signing::generate_key_pair(key_file));
    ::chmod(key_file.c_str(), 0640);
    auto loose = signing::SigningKey::load(key_file);
    REQUIRE_FALSE(loose);
    CHECK_MESSAGE(loose.error().message.find("others may read it (mode 0640)") != std::string::npos,
                  loose.error().message);
    ::chmod(key_file.c_str(), 0600);
    CHECK(signing::SigningKey::load(key_file));
    // An encrypted key would ask for a passphrase: refused without asking.
    REQUIRE(openssl({"genpkey", "-algorithm", "ed25519", "-aes-128-cbc", "-pass", "pass:secret", "-out",
                     (dir / "enc").string()})
                .exit_code == 0);
    ::chmod((dir / "enc").c_str(), 0600);
    auto encrypted = signing::SigningKey::load(dir / "enc");
    REQUIRE_FALSE(encrypted);
    CHECK(encrypted.error().message.find("not an unencrypted PEM private key") != std::string::npos);
    ::chmod((key_file.string() + ".pub").c_str(), 0600);
    auto public_one = signing::SigningKey::load(key_file.string() + ".pub");
    REQUIRE_FALSE(public_one);
    CHECK(public_one.error().message.find("it is a public key") != std::string::npos);
    // Another algorithm's key.
    REQUIRE(openssl({"genpkey", "-algorithm", "x25519", "-out", (dir / "x").string()}).exit_code == 0);
    ::chmod((dir / "x").c_str(), 0600);
    auto x25519 = signing::SigningKey::load(dir / "x");
    REQUIRE_FALSE(x25519);
    CHECK(x25519.error().message.find("not an Ed25519 key") != std::string::npos);
    // No key is ever written over another file.
    const std::string before = test::slurp(key_file);
    auto again = signing::generate_key_pair(key_file);
    REQUIRE_FALSE(again);
    CHECK(again.error().message.find("already exists") != std::string::npos);
    CHECK(test::slurp(key_file) == before);
  }

  TEST_CASE("an HMAC-SHA256 tag is what openssl computes - under each key its own") {
    test::TempDir dir("trust");
    trust::HmacKey key;
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = std::byte(i * 7 + 3);
    const std::string head = "kiln/shaders/ns/0123", body(70000, 'x');
    const trust::HmacTag tag = trust::hmac_sha256(key, {bytes_of(head), bytes_of(body)});
    test::spit(dir / "data", head + body);
    std::string key_hex;
    for (std::byte b : key) key_hex += hex(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(&b), 1));
    const auto oracle =
        openssl({"dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:" + key_hex, "-r", (dir / "data").string()});
    REQUIRE_MESSAGE(oracle.exit_code == 0, oracle.output);
    CHECK(oracle.output.substr(0, 64) == hex(tag));
    // Pieces are hashed as one message; another key gives another tag.
    CHECK(trust::hmac_sha256(key, {bytes_of(head + body)}) == tag);
    trust::HmacKey other = key;
    other[31] ^= std::byte{1};
    CHECK_FALSE(trust::same_tag(tag, trust::hmac_sha256(other, {bytes_of(head), bytes_of(body)})));
    CHECK(trust::same_tag(tag, tag));
  }

  TEST_CASE("a remote cache key is 32 bytes only its owner may read - kept as made") {
    test::TempDir dir("trust");
    const fs::path key_file = dir / "farm.key";
    REQUIRE(signing::generate_remote_key(key_file));
    CHECK(fs::file_size(key_file) == 32);
    auto key = trust::read_hmac_key(key_file);
    REQUIRE_MESSAGE(key, key.error().message);
    CHECK(std::memcmp(key->data(), test::slurp(key_file).data(), 32) == 0);
    CHECK_FALSE(signing::generate_remote_key(key_file));  // never overwritten

    ::chmod(key_file.c_str(), 0604);
    auto readable = trust::read_hmac_key(key_file);
    REQUIRE_FALSE(readable);
    CHECK(readable.error().message.find("others may read it") != std::string::npos);
    CHECK(readable.error().message.find("chmod 600") != std::string::npos);

    test::spit(dir / "short.key", std::string(31, 'a'));
    ::chmod((dir / "short.key").c_str(), 0600);
    auto short_key = trust::read_hmac_key(dir / "short.key");
    REQUIRE_FALSE(short_key);
    CHECK(short_key.error().message.find("exactly 32 bytes (it has 31") != std::string::npos);

    REQUIRE(::mkfifo((dir / "fifo.key").c_str(), 0600) == 0);
    auto fifo = trust::read_hmac_key(dir / "fifo.key");  // refused at once, not waited on
    REQUIRE_FALSE(fifo);
    CHECK(fifo.error().message.find("not a regular file") != std::string::npos);

    // A list names its first bad file.
    ::chmod(key_file.c_str(), 0600);
    auto keys = trust::read_hmac_keys({key_file, dir / "short.key"});
    REQUIRE_FALSE(keys);
    CHECK(keys.error().message.find("short.key") != std::string::npos);
    auto both = trust::read_hmac_keys({key_file, key_file});
    REQUIRE(both);
    CHECK(both->size() == 2);
  }
}
