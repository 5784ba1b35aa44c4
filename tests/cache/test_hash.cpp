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

  TEST_CASE("Sha256Stream over pieces is sha256_hex of their concatenation") {
    const std::string text = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    for (std::size_t cut : {std::size_t{0}, std::size_t{1}, std::size_t{31}, text.size()}) {
      Sha256Stream stream;
      stream.update(std::as_bytes(std::span(text.data(), cut)));
      stream.update(std::as_bytes(std::span(text.data() + cut, text.size() - cut)));
      CHECK(stream.hex() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    }
  }

  TEST_CASE("a variant digest is the first 12 hex of SHA-256") {
    // shader-variant-cache seed: ("Lit","Forward",{FOG,SKIN},7) -> 2a876a0d5092.
    CHECK(sha256_hex(std::string_view("Lit|Forward|FOG;SKIN|7")).substr(0, 12) == "2a876a0d5092");
  }
}

TEST_SUITE("cache") {
  TEST_CASE("umac128 matches the RFC 4418 test vectors") {
    auto hex = [](const std::array<std::uint8_t, 16>& mac) {
      std::string out;
      char buf[3];
      for (auto b : mac) std::snprintf(buf, sizeof buf, "%02x", b), out += buf;
      return out;
    };
    const std::string key_text = "abcdefghijklmnop", nonce_text = "bcdefghi";
    const auto key = std::as_bytes(std::span(key_text)).first<kiln::cache::kUmacKeyBytes>();
    const auto nonce = std::as_bytes(std::span(nonce_text));
    auto mac = [&](const std::string& data) {
      return hex(kiln::cache::umac128(key, nonce, std::as_bytes(std::span(data))));
    };
    // The RFC lists 32- to 96-bit tags; a 128-bit tag begins with the 96-bit one (the same first
    // three iterations of its hash and the same pad).
    CHECK(mac("") == "32fedb100c79ad58f07ff7643cc60465");
    CHECK(mac("aaa").substr(0, 24) == "185e4fe905cba7bd85e4c2dc");
    CHECK(mac(std::string(1024, 'a')).substr(0, 24) == "7a54abe04af82d60fb298c3c");
    std::string abc500;
    for (int i = 0; i < 500; ++i) abc500 += "abc";
    CHECK(mac(abc500).substr(0, 24) == "8824a260c53c66a36c9260a6");
    // A keyed state is reused per thread: another key, then this one again, still give the vectors.
    const std::string other_key(16, 'x');
    CHECK(hex(kiln::cache::umac128(std::as_bytes(std::span(other_key)).first<kiln::cache::kUmacKeyBytes>(), nonce,
                                   std::as_bytes(std::span(abc500))))
              .substr(0, 24) != "8824a260c53c66a36c9260a6");
    CHECK(mac("") == "32fedb100c79ad58f07ff7643cc60465");
    // An empty nonce is one zero byte (never a read past it).
    const std::byte zero[1] = {};
    CHECK(hex(kiln::cache::umac128(key, {}, std::as_bytes(std::span(abc500)))) ==
          hex(kiln::cache::umac128(key, zero, std::as_bytes(std::span(abc500)))));
    // Another nonce, another tag.
    const std::string nonce2 = "bcdefghj";
    CHECK(hex(kiln::cache::umac128(key, std::as_bytes(std::span(nonce2)), {})) != "32fedb100c79ad58f07ff7643cc60465");
  }
}
