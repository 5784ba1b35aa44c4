// RuntimeLibrary: a library opened at run time, its functions looked up by name.

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "kiln/core/runtime_library.h"

using kiln::RuntimeLibrary;

TEST_SUITE("core") {
  TEST_CASE("a runtime library binds its functions - missing ones and missing libraries are named") {
    auto libm = RuntimeLibrary::open("libm.so.6", "the maths library");
    REQUIRE(libm);
    double (*cosine)(double) = nullptr;
    libm->bind(cosine, "cos");
    REQUIRE(bool(cosine));
    CHECK(cosine(0.0) == 1.0);
    CHECK(libm->complete());
    int (*absent)(int) = nullptr;
    libm->bind(absent, "kiln_no_such_function");
    CHECK_FALSE(bool(absent));
    const auto incomplete = libm->complete();
    REQUIRE_FALSE(incomplete);
    CHECK(incomplete.error().message == "libm.so.6 lacks kiln_no_such_function");

    auto missing = RuntimeLibrary::open("libkiln-no-such-library.so.1", "the test's library");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message.rfind("cannot load the test's library: ", 0) == 0);
    CHECK(missing.error().message.find("libkiln-no-such-library.so.1") != std::string::npos);
  }
}
