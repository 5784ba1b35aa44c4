// Ray-tracing sets in a cook: a shader id with a rgen stage is a set (its groups in shader binding
// table order), a shader id of hit stages alone is one hit group named by its id, materials on
// either are checked against their stages, the cooked set gives an engine the groups, and
// kiln-player on lavapipe (no VK_KHR_ray_tracing_pipeline) refuses the set naming what it lacks.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "child_process.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/runtime/shader_interface.h"
#include "lavapipe.h"
#include "modern_stage_shaders.h"
#include "temp_dir.h"
#include "test_files.h"

namespace fs = std::filesystem;
using namespace kiln;
using Group = runtime::RayTracingGroup;

TEST_SUITE("editor") {
  TEST_CASE(
      "a ray-tracing set and a hit group cook with their shader groups - kiln-player on lavapipe refuses the set") {
    test::TempDir dir("ray-tracing-sets");
    const fs::path project = test::copy_assets(dir);
    for (const test::StageSource& s : test::modern_stage_files())
      if (std::string(s.file).rfind("trace.", 0) == 0) std::ofstream(project / "shaders" / s.file) << s.source;
    std::ofstream(project / "shaders" / "glass.rchit") << test::kGlassClosestHit;
    std::ofstream(project / "shaders" / "glass.rahit") << test::kRayAnyHit;
    std::ofstream(project / "kiln.json")
        << R"({"cook": {"targets": [{"backend": "spirv", "target_env": "vulkan1.2"}]}})";
    std::ofstream(project / "materials" / "trace.json") << R"({"shader": "shaders/trace"})";
    std::ofstream(project / "materials" / "glass.json")
        << R"({"shader": "shaders/glass", "params": {"tint": [0.9, 0.95, 1, 1], "ior": 1.5}})";
    const std::string cache = (dir / "cache").string();
    auto cooked =
        test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root", cache});
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);

    auto set = runtime::CookedSet::open(dir / "out");
    REQUIRE(set);
    auto trace = (*set)->variant("shaders/trace|Main|");
    REQUIRE_MESSAGE(trace, trace.error().message);
    auto interface = runtime::shader_interface(*trace, "trace");
    REQUIRE_MESSAGE(interface, interface.error().message);
    CHECK(interface->kind == runtime::PipelineKind::kRayTracing);
    // Stages in table order: rgen 0, rint 1, rahit 2, rchit 3, rmiss 4, rcall 5.
    REQUIRE(trace->stages.size() == 6);
    CHECK(trace->stages[1].stage == "rint");
    const std::vector<Group> trace_groups = {
        {Group::Type::kGeneral, 0},
        {Group::Type::kGeneral, 4},
        {Group::Type::kProcedural, Group::kNone, 3, 2, 1},
        {Group::Type::kGeneral, 5},
    };
    CHECK(interface->groups == trace_groups);
    // The acceleration structure is a binding of the set's interface.
    const runtime::DescriptorBinding* scene = interface->binding_named("scene");
    REQUIRE(scene);
    CHECK(scene->kind == runtime::DescriptorKind::kAccelerationStructure);

    auto glass = (*set)->variant("shaders/glass|Main|");
    REQUIRE_MESSAGE(glass, glass.error().message);
    auto glass_interface = runtime::shader_interface(*glass, "glass");
    REQUIRE_MESSAGE(glass_interface, glass_interface.error().message);
    const std::vector<Group> glass_groups = {{Group::Type::kTriangles, Group::kNone, 1, 0}};  // rahit 0, rchit 1
    CHECK(glass_interface->groups == glass_groups);
    auto material = (*set)->material("materials/glass.json");
    REQUIRE_MESSAGE(material, material.error().message);
    REQUIRE(material->passes.size() == 1);
    REQUIRE(material->passes[0].blocks.size() == 1);
    CHECK(material->passes[0].blocks[0].name == "Glass");

    // A hit group's parameters are checked like any other's.
    std::ofstream(project / "materials" / "glass.json") << R"({"shader": "shaders/glass", "params": {"iorr": 1.5}})";
    auto misspelt = test::run_process(
        {KILN_CLI, "cook", project.string(), "--out", (dir / "out2").string(), "--cache-root", cache});
    CHECK(misspelt.exit_code == 1);
    CHECK_MESSAGE(misspelt.output.find("glass.json: /params/iorr: shader shaders/glass has no parameter 'iorr'") !=
                      std::string::npos,
                  misspelt.output);

    if (test::lavapipe_icd().empty()) return;
    auto played = test::run_process({KILN_PLAYER, (dir / "out").string(), "--frames", "1", "--require-gpu",
                                     "--cache-root", (dir / "player-cache").string()},
                                    test::lavapipe_env());
    CHECK(played.exit_code == 1);
    CHECK_MESSAGE(
        played.output.find("a ray-tracing set needs VK_KHR_ray_tracing_pipeline, which llvmpipe") != std::string::npos,
        played.output);
  }
}
