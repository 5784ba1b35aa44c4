// A stage SPIRV-Cross cannot reflect still compiles: its reflection is marked unavailable with the
// reason, a warning says what goes unchecked, and everything that needs the reflection (a pipeline
// layout, a material's layout, another backend) refuses it by name. A stand-in worker dies where a
// crash in SPIRV-Cross would.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "kiln/materials/material.h"
#include "kiln/materials/material_layout.h"
#include "kiln/materials/variant_key.h"
#include "kiln/runtime/shader_interface.h"
#include "kiln/runtime/variant_record.h"
#include "kiln/shadercache/shader_library.h"

using namespace kiln;
using namespace kiln::shadercache;
namespace fs = std::filesystem;

namespace {

const fs::path kAssets = fs::path(KILN_SOURCE_DIR) / "assets";
constexpr const char* kLost = "SPIRV-Cross crashed (SIGSEGV) reading it";

CompileIsolation dying_workers() {
  return {.mode = CompileIsolation::Mode::kProcess, .worker = KILN_WORKER_DIES_REFLECTING};
}

runtime::VariantRecord record_of(const CompiledVariant& variant) {
  runtime::VariantRecord record;
  for (const auto& s : variant.stages)
    record.stages.push_back({s.stage, s.file, s.spirv, s.reflection, s.backend_source});
  return record;
}

}  // namespace

TEST_SUITE("shadercache") {
  TEST_CASE("a stage SPIRV-Cross could not reflect still compiles - marked unreflected with the reason and a warning") {
    ShaderLibrary lost({.root = kAssets, .isolation = dying_workers()});
    ShaderLibrary reference({.root = kAssets});
    auto variant = lost.variant("shaders/unlit", "Forward", {"FOG"});
    REQUIRE_MESSAGE(variant, variant.error().message);
    auto expected = reference.variant("shaders/unlit", "Forward", {"FOG"});
    REQUIRE(expected);
    REQUIRE((*variant)->stages.size() == (*expected)->stages.size());
    for (std::size_t i = 0; i < (*variant)->stages.size(); ++i) {
      const CompiledStage& stage = (*variant)->stages[i];
      CAPTURE(stage.stage);
      CHECK(stage.spirv == (*expected)->stages[i].spirv);
      CHECK(stage.reflection == runtime::StageReflection{.unavailable = kLost});
      CHECK_MESSAGE(stage.warnings.find(stage.file + ": warning: " + stage.stage +
                                        " stage: not reflected, so no pipeline layout or material check can use it: " +
                                        kLost) != std::string::npos,
                    stage.warnings);
    }

    // What needs the reflection refuses the variant by name.
    const std::string name = materials::VariantKey::create("shaders/unlit", "Forward", {"FOG"}, 0).name();
    materials::VariantReflections reflections;
    for (const auto& stage : (*variant)->stages) reflections[name].push_back(&stage.reflection);
    auto m = materials::parse_material("m.json", R"({"shader": "shaders/unlit", "keywords": ["FOG"]})");
    REQUIRE(m);
    runtime::MaterialRecord material;
    material.passes.push_back({"Forward", name, {}, {}});
    auto laid = materials::lay_out_material(*m, reflections, material);
    REQUIRE_FALSE(laid);
    CHECK_MESSAGE(laid.error().message.find("m.json: variant " + name +
                                            " has a stage without reflection, so its parameters cannot be laid out (" +
                                            kLost + ")") != std::string::npos,
                  laid.error().message);

    const runtime::VariantRecord record = record_of(**variant);
    auto layout = runtime::shader_interface(record, "v");
    REQUIRE_FALSE(layout);
    CHECK(layout.error().message == std::string("v: vert: no reflection, so no pipeline layout (") + kLost + ")");

    // The pack form keeps the reason, and its check accepts an unreflected stage.
    auto decoded = runtime::decode_variant_record(runtime::encode_variant_record(record), "v");
    REQUIRE_MESSAGE(decoded, decoded.error().message);
    CHECK(decoded->stages.front().reflection.unavailable == kLost);
  }

  TEST_CASE(
      "a stage without reflection is not translated to another backend - the error names file - stage and backend") {
    ShaderLibrary lost({.root = kAssets, .backend = Backend::kMsl, .isolation = dying_workers()});
    auto variant = lost.variant("shaders/unlit", "Forward", {"FOG"});
    REQUIRE_FALSE(variant);
    CHECK_MESSAGE(variant.error().message.find("shaders/unlit.vert: error: vert stage: cannot be translated to msl: " +
                                               std::string(kLost)) != std::string::npos,
                  variant.error().message);
  }

  TEST_CASE("a reflection marked unavailable describes nothing - a stored one that does is refused") {
    ShaderLibrary reference({.root = kAssets});
    auto variant = reference.variant("shaders/unlit", "Forward", {"FOG"});
    REQUIRE(variant);
    runtime::VariantRecord record = record_of(**variant);
    record.stages.front().reflection.unavailable = "it could not be read";  // and still lists its bindings
    auto decoded = runtime::decode_variant_record(runtime::encode_variant_record(record), "v");
    REQUIRE_FALSE(decoded);
    CHECK_MESSAGE(decoded.error().message.find("a reflection marked unavailable describes the stage all the same") !=
                      std::string::npos,
                  decoded.error().message);

    auto empty_reason = runtime::decode_reflection(
        R"({"format": )" + std::to_string(runtime::kReflectionFormat) +
            R"(, "entry_point": "main", "bindings": [], "push_constants": [], "inputs": [], "outputs": [],
               "specialization_constants": [], "unavailable": ""})",
        "r.json");
    REQUIRE_FALSE(empty_reason);
    CHECK_MESSAGE(empty_reason.error().message.find("/unavailable") != std::string::npos, empty_reason.error().message);
  }
}
