#include <doctest/doctest.h>

#include <string>

#include "kiln/cache/hash.h"

using namespace kiln::cache;

TEST_SUITE("cache") {
  // Vectors: `xxhsum -H3` / `xxhsum -H2` (xxHash 0.8) and FIPS 180-2 for SHA-256.
  TEST_CASE("xxh3_64 matches the reference vectors") {
    CHECK(hex64(xxh3_64(std::string_view(""))) == "2d06800538d394c2");
    CHECK(hex64(xxh3_64(std::string_view("abc"))) == "78af5f94892f3950");
  }

  TEST_CASE("xxh3_128 matches the reference vectors - high half first") {
    CHECK(xxh3_128(std::string_view("")).hex() == "99aa06d3014798d86001c324468d497f");
    CHECK(xxh3_128(std::string_view("abc")).hex() == "06b05ab6733a618578af5f94892f3950");
  }

  TEST_CASE("streamed xxh3_128 equals the one-shot hash of the concatenation") {
    std::string big(100000, '\0');
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31 + 7);
    Xxh3Stream s;
    s.update(std::string_view(big).substr(0, 1))
        .update(std::string_view(big).substr(1, 4095))
        .update(std::string_view(big).substr(4096));
    CHECK(s.digest128() == xxh3_128(big));
    CHECK_FALSE(xxh3_128(big.substr(1)) == xxh3_128(big));
  }

  TEST_CASE("sha256_hex matches FIPS 180-2 vectors") {
    CHECK(sha256_hex(std::string_view("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex(std::string_view("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex(std::string_view("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  }

  TEST_CASE("a variant digest is the first 12 hex of SHA-256") {
    // shader-variant-cache seed: ("Lit","Forward",{FOG,SKIN},7) -> 2a876a0d5092.
    CHECK(sha256_hex(std::string_view("Lit|Forward|FOG;SKIN|7")).substr(0, 12) == "2a876a0d5092");
  }
}

TEST_SUITE("cache") {
  TEST_CASE("hmac_sha256 matches RFC 4231 test cases 1 2 and 6") {
    auto hex = [](const std::array<std::uint8_t, 32>& mac) {
      std::string out;
      char buf[3];
      for (auto b : mac) std::snprintf(buf, sizeof buf, "%02x", b), out += buf;
      return out;
    };
    const std::string key1(20, '\x0b'), data1 = "Hi There";
    CHECK(hex(kiln::cache::hmac_sha256(std::as_bytes(std::span(key1)), std::as_bytes(std::span(data1)))) ==
          "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    const std::string key2 = "Jefe", data2 = "what do ya want for nothing?";
    CHECK(hex(kiln::cache::hmac_sha256(std::as_bytes(std::span(key2)), std::as_bytes(std::span(data2)))) ==
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    // A keyed context is reused per thread: the same key twice, then a switch back, still give
    // the standard's answers (no state carried from one MAC to the next).
    CHECK(hex(kiln::cache::hmac_sha256(std::as_bytes(std::span(key2)), std::as_bytes(std::span(data2)))) ==
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    CHECK(hex(kiln::cache::hmac_sha256(std::as_bytes(std::span(key1)), std::as_bytes(std::span(data1)))) ==
          "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    // Test case 6: a key longer than SHA-256's block is hashed first.
    const std::string key6(131, '\xaa'), data6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    CHECK(hex(kiln::cache::hmac_sha256(std::as_bytes(std::span(key6)), std::as_bytes(std::span(data6)))) ==
          "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    const std::string key3(20, '\x0b');  // equal bytes at another address
    CHECK(hex(kiln::cache::hmac_sha256(std::as_bytes(std::span(key3)), std::as_bytes(std::span(data1)))) ==
          "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  }
}
