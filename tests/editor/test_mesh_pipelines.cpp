// A material on a mesh pipeline (task, mesh and fragment stages): the cook builds and checks it like
// any other, the cooked set carries it for an engine to build, and kiln-player on a device without
// VK_EXT_mesh_shader (lavapipe) refuses the set naming what the device lacks.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "child_process.h"
#include "kiln/runtime/cooked_set.h"
#include "lavapipe.h"
#include "modern_stage_shaders.h"
#include "temp_dir.h"
#include "test_files.h"

namespace fs = std::filesystem;
using namespace kiln;

TEST_SUITE("editor") {
  TEST_CASE(
      "a material on a mesh pipeline cooks and is checked - kiln-player on lavapipe refuses it naming "
      "VK_EXT_mesh_shader") {
    test::TempDir dir("mesh-pipeline");
    const fs::path project = test::copy_assets(dir);
    for (const test::StageSource& s : test::modern_stage_files())
      if (std::string(s.file).rfind("meshlets.", 0) == 0) std::ofstream(project / "shaders" / s.file) << s.source;
    std::ofstream(project / "kiln.json")
        << R"({"cook": {"targets": [{"backend": "spirv", "target_env": "vulkan1.2"}]}})";
    // Its parameter is checked against the mesh stage's uniform block, as for any other stage.
    std::ofstream(project / "materials" / "meshlets.json")
        << R"({"shader": "shaders/meshlets", "params": {"tint": [1, 0.5, 0.25, 1]}})";
    const std::string cache = (dir / "cache").string();
    auto cooked =
        test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root", cache});
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);

    auto set = runtime::CookedSet::open(dir / "out");
    REQUIRE(set);
    auto variant = (*set)->variant("shaders/meshlets|Main|");  // no passes declared: the one pass, Main
    REQUIRE_MESSAGE(variant, variant.error().message);
    REQUIRE(variant->stages.size() == 3);
    CHECK(variant->stages[0].stage == "task");
    CHECK(variant->stages[1].stage == "mesh");
    CHECK(variant->stages[2].stage == "frag");
    REQUIRE(variant->stages[1].reflection.mesh_output);

    std::ofstream(project / "materials" / "meshlets.json")
        << R"({"shader": "shaders/meshlets", "params": {"colr": 1}})";
    auto misspelt =
        test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root", cache});
    CHECK(misspelt.exit_code == 1);
    CHECK_MESSAGE(
        misspelt.output.find("meshlets.json: /params/colr: shader shaders/meshlets has no parameter 'colr'") !=
            std::string::npos,
        misspelt.output);

    auto played = test::run_process({KILN_PLAYER, (dir / "out").string(), "--frames", "1", "--require-gpu",
                                     "--cache-root", (dir / "player-cache").string()},
                                    test::lavapipe_env());
    CHECK(played.exit_code == 1);
    CHECK_MESSAGE(
        played.output.find("shaders/meshlets|Main|: a mesh pipeline needs VK_EXT_mesh_shader, which llvmpipe") !=
            std::string::npos,
        played.output);
  }
}
