// Mesh, task and ray-tracing stages through `kiln shader compile`: the stage comes from the file's
// extension and the SPIR-V is glslangValidator's at the same target environment.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "child_process.h"
#include "modern_stage_shaders.h"
#include "temp_dir.h"
#include "test_files.h"

namespace fs = std::filesystem;
using namespace kiln;

TEST_SUITE("editor") {
  TEST_CASE("every mesh - task and ray-tracing stage compiles as glslangValidator compiles it") {
    test::TempDir dir("modern-stages");
    const std::string cache = (dir / "cache").string();
    for (const test::StageSource& stage_source : test::modern_stage_files()) {
      const std::string file = stage_source.file;
      const std::string source = stage_source.source;
      CAPTURE(file);
      std::ofstream(dir / file) << source;
      const fs::path ours = dir / (std::string(file) + ".kiln.spv"), theirs = dir / (std::string(file) + ".spv");
      auto compiled = test::run_process({KILN_CLI, "shader", "compile", (dir / file).string(), "--target-env",
                                         "vulkan1.2", "-o", ours.string(), "--cache-root", cache});
      REQUIRE_MESSAGE(compiled.exit_code == 0, compiled.output);
      auto oracle = test::run_process({"/usr/bin/glslangValidator", "-V", "--target-env", "vulkan1.2",
                                       (dir / file).string(), "-o", theirs.string()});
      REQUIRE_MESSAGE(oracle.exit_code == 0, oracle.output);
      CHECK(test::slurp(ours) == test::slurp(theirs));
    }
    // `kiln shader reflect` shows what these stages add.
    const std::pair<const char*, const char*> shown[] = {
        {"meshlets.mesh", "mesh_output triangles max_vertices=64 max_primitives=124"},
        {"meshlets.mesh", "outputs location=1 uint meshlet_id per_primitive"},
        {"meshlets.task", "task_payload Payload payload size=128"},
        {"trace.rchit", "hit_attribute vec2 barycentrics size=8"},
        {"trace.rmiss", "shader_record Sky size=16"},
        {"trace.rgen", "binding set=0 binding=0 acceleration_structure scene"}};
    for (const auto& shown_line : shown) {
      const std::string file = shown_line.first, line = shown_line.second;
      CAPTURE(file);
      auto reflected = test::run_process(
          {KILN_CLI, "shader", "reflect", (dir / file).string(), "--target-env", "vulkan1.2", "--cache-root", cache});
      REQUIRE_MESSAGE(reflected.exit_code == 0, reflected.output);
      CHECK_MESSAGE(reflected.output.find(line) != std::string::npos, reflected.output);
    }
  }

  TEST_CASE(
      "a mesh or ray-tracing stage below SPIR-V 1.4 is glslang's error at its line - and a note says which target") {
    test::TempDir dir("modern-stages");
    std::ofstream(dir / "meshlets.mesh") << test::kMeshMesh;
    auto compiled = test::run_process({KILN_CLI, "shader", "compile", (dir / "meshlets.mesh").string(), "-o",
                                       (dir / "out.spv").string(), "--cache-root", (dir / "cache").string()});
    CHECK(compiled.exit_code == 1);
    CHECK_MESSAGE(compiled.output.find("meshlets.mesh:2: error: 'GL_EXT_mesh_shader' : not supported for current "
                                       "targeted SPIR-V version") != std::string::npos,
                  compiled.output);
    CHECK_MESSAGE(compiled.output.find("meshlets.mesh: note: task, mesh and ray-tracing stages need SPIR-V 1.4: a "
                                       "target of vulkan1.2 or later") != std::string::npos,
                  compiled.output);
    CHECK_FALSE(fs::exists(dir / "out.spv"));
  }
}
