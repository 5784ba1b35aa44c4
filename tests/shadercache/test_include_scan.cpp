#include <doctest/doctest.h>

#include "kiln/shadercache/include_scan.h"

using kiln::shadercache::scan_include_names;

TEST_SUITE("shadercache") {
  TEST_CASE("the include scan sees directives after comments and across continuations - not inside comments") {
    const auto names = scan_include_names(
        "#include \"a.glsl\" /* c */\n/* #include \"b.glsl\"\n*/ #include <c.glsl>\n# include \\\n \"d.glsl\"\n// "
        "#include \"e.glsl\"\n");
    CHECK(names == std::vector<std::string>{"a.glsl", "c.glsl", "d.glsl"});
    CHECK(scan_include_names("#include \"unterminated\n#include").empty());
    CHECK(scan_include_names("/* never closed #include \"x.glsl\"").empty());
  }
}
