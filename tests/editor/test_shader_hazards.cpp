// `kiln shader compile` and `kiln shader reflect` on valid shaders SPIRV-Cross could not take:
// the tool ends with a result or a located error, never a signal.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "child_process.h"
#include "hazard_shaders.h"
#include "temp_dir.h"
#include "test_files.h"

namespace fs = std::filesystem;
using namespace kiln;

TEST_SUITE("editor") {
  TEST_CASE("a buffer_reference linked list compiles as glslangValidator compiles it and is reflected") {
    test::TempDir dir("hazards");
    std::ofstream(dir / "list.frag") << test::kLinkedListFrag;
    const std::string cache = (dir / "cache").string();
    auto compiled = test::run_process({KILN_CLI, "shader", "compile", (dir / "list.frag").string(), "-o",
                                       (dir / "kiln.spv").string(), "--cache-root", cache});
    REQUIRE_MESSAGE(compiled.exit_code == 0, compiled.output);
    auto oracle = test::run_process(
        {"/usr/bin/glslangValidator", "-V", (dir / "list.frag").string(), "-o", (dir / "oracle.spv").string()});
    REQUIRE_MESSAGE(oracle.exit_code == 0, oracle.output);
    CHECK(test::slurp(dir / "kiln.spv") == test::slurp(dir / "oracle.spv"));
    auto reflected =
        test::run_process({KILN_CLI, "shader", "reflect", (dir / "list.frag").string(), "--cache-root", cache});
    REQUIRE_MESSAGE(reflected.exit_code == 0, reflected.output);
    CHECK_MESSAGE(reflected.output.find("member offset=0 size=8 pointer head") != std::string::npos, reflected.output);
  }

  TEST_CASE("a shader SPIRV-Cross cannot read fails with the file - the stage and the extensions it uses") {
    test::TempDir dir("hazards");
    std::ofstream(dir / "coop.comp") << test::kCooperativeMatrixComp;
    auto compiled = test::run_process({KILN_CLI, "shader", "compile", (dir / "coop.comp").string(), "-o",
                                       (dir / "coop.spv").string(), "--cache-root", (dir / "cache").string()});
    CHECK(compiled.exit_code == 1);
    CHECK_MESSAGE(compiled.output.find("coop.comp: error: comp stage: SPIRV-Cross ") != std::string::npos,
                  compiled.output);
    CHECK(compiled.output.find("SPV_NV_cooperative_matrix") != std::string::npos);
  }
}
