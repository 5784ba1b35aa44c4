// `kiln shader compile` and `kiln shader reflect` on valid shaders SPIRV-Cross could not take:
// the tool ends with a result or a located error, never a signal.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "child_process.h"
#include "temp_dir.h"
#include "test_files.h"

namespace fs = std::filesystem;
using namespace kiln;

TEST_SUITE("editor") {
  TEST_CASE("a buffer_reference linked list compiles as glslangValidator compiles it and is reflected") {
    test::TempDir dir("hazards");
    std::ofstream(dir / "list.frag") << R"(#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference) buffer Node;
struct Item { Node next; vec4 value; };
layout(buffer_reference, std430) buffer Node { Item item; };
layout(set = 0, binding = 0) uniform Root { Node head; Item first; } root;
layout(location = 0) out vec4 color;
void main() {
  Node n = root.head;
  vec4 sum = root.first.value;
  for (int i = 0; i < 4; ++i) { sum += n.item.value; n = n.item.next; }
  color = sum;
}
)";
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
    std::ofstream(dir / "coop.comp") << R"(#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { float16_t a[]; };
void main() {
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> m;
  coopMatLoadNV(m, a, 0, 16, false);
  coopMatStoreNV(m, a, 256, 16, false);
}
)";
    auto compiled = test::run_process({KILN_CLI, "shader", "compile", (dir / "coop.comp").string(), "-o",
                                       (dir / "coop.spv").string(), "--cache-root", (dir / "cache").string()});
    CHECK(compiled.exit_code == 1);
    CHECK_MESSAGE(compiled.output.find("coop.comp: error: comp stage: SPIRV-Cross ") != std::string::npos,
                  compiled.output);
    CHECK(compiled.output.find("SPV_NV_cooperative_matrix") != std::string::npos);
  }
}
