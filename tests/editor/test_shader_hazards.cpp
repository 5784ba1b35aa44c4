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

  TEST_CASE(
      "a shader SPIRV-Cross cannot read compiles as glslangValidator compiles it - reflect names the extensions") {
    test::TempDir dir("hazards");
    std::ofstream(dir / "coop.comp") << test::kCooperativeMatrixComp;
    const std::string cache = (dir / "cache").string();
    auto compiled = test::run_process({KILN_CLI, "shader", "compile", (dir / "coop.comp").string(), "-o",
                                       (dir / "coop.spv").string(), "--cache-root", cache});
    REQUIRE_MESSAGE(compiled.exit_code == 0, compiled.output);
    auto oracle = test::run_process(
        {"/usr/bin/glslangValidator", "-V", (dir / "coop.comp").string(), "-o", (dir / "oracle.spv").string()});
    REQUIRE_MESSAGE(oracle.exit_code == 0, oracle.output);
    CHECK(test::slurp(dir / "coop.spv") == test::slurp(dir / "oracle.spv"));
    // The warning says what will not be checked, and why.
    CHECK_MESSAGE(compiled.output.find("coop.comp: warning: comp stage: not reflected, so no pipeline layout or "
                                       "material check can use it: SPIRV-Cross ") != std::string::npos,
                  compiled.output);
    CHECK(compiled.output.find("SPV_NV_cooperative_matrix") != std::string::npos);

    auto reflected =
        test::run_process({KILN_CLI, "shader", "reflect", (dir / "coop.comp").string(), "--cache-root", cache});
    CHECK(reflected.exit_code == 1);
    CHECK_MESSAGE(reflected.output.find("coop.comp: error: comp stage: SPIRV-Cross ") != std::string::npos,
                  reflected.output);
    CHECK(reflected.output.find("SPV_NV_cooperative_matrix") != std::string::npos);

    auto msl = test::run_process({KILN_CLI, "shader", "compile", (dir / "coop.comp").string(), "--backend", "msl", "-o",
                                  (dir / "coop.msl").string(), "--cache-root", cache});
    CHECK(msl.exit_code == 1);
    CHECK_MESSAGE(
        msl.output.find("coop.comp: error: comp stage: cannot be translated to msl: SPIRV-Cross ") != std::string::npos,
        msl.output);
    CHECK_FALSE(fs::exists(dir / "coop.msl"));
  }
}
