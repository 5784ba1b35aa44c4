// A namespace id is a digest of the build and settings identities: no choice of names and values
// (separators included) makes two different identities share one, and order does not matter.

#include <doctest/doctest.h>

#include <string>

#include "kiln/cache/blob_store.h"

using namespace kiln::cache;

TEST_SUITE("cache") {
  TEST_CASE("identities that differ only in where separators fall get different namespaces") {
    // Joined without lengths, each pair would read "a=b;c=d;".
    CHECK(namespace_id({{"a", "b;c=d"}}) != namespace_id({{"a", "b"}, {"c", "d"}}));
    CHECK(namespace_id({{"a=b", "c"}}) != namespace_id({{"a", "b=c"}}));
    CHECK(namespace_id({}, {{"x", "1;y=2"}}) != namespace_id({}, {{"x", "1"}, {"y", "2"}}));
    // A build entry is not a settings entry.
    CHECK(namespace_id({{"x", "1"}}, {}) != namespace_id({}, {{"x", "1"}}));
    // The same pairs in another order are the same identity.
    CHECK(namespace_id({{"a", "1"}, {"b", "2"}}, {{"s", "t"}}) == namespace_id({{"b", "2"}, {"a", "1"}}, {{"s", "t"}}));
  }
}
