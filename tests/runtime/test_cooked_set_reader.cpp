// The reader API on a directory cooked by the real `kiln cook`: what an engine embedding Kiln calls.

#include <doctest/doctest.h>

#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/textures/tx_file.h"
#include "temp_dir.h"

using namespace kiln;
using namespace kiln::runtime;
namespace fs = std::filesystem;

namespace {

float float_at(const std::vector<std::byte>& bytes, std::size_t offset) {
  float f = 0;
  REQUIRE(offset + 4 <= bytes.size());
  std::memcpy(&f, bytes.data() + offset, 4);
  return f;
}

// The reflected member `name` of the uniform block `block` in any stage of `variant`.
nlohmann::json member_of(const VariantRecord& variant, const std::string& block, const std::string& name) {
  for (const auto& stage : variant.stages) {
    const auto reflection = nlohmann::json::parse(runtime::encode_reflection(stage.reflection));
    for (const auto& b : reflection["bindings"])
      if (b["name"] == block)
        for (const auto& m : b["members"])
          if (m["name"] == name) return m;
  }
  return nullptr;
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("the reader API loads a material's parameter block and SPIR-V from a cooked directory") {
    test::TempDir dir("reader");
    auto cooked = test::run_process({KILN_CLI, "cook", (fs::path(KILN_SOURCE_DIR) / "assets").string(), "--out",
                                     (dir / "out").string(), "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
    auto set = CookedSet::open(dir / "out");
    REQUIRE_MESSAGE(set, set.error().message);
    REQUIRE((*set)->check());

    auto brick = (*set)->material("materials/brick.json");
    REQUIRE_MESSAGE(brick, brick.error().message);
    CHECK(brick->shader == "shaders/lit");
    CHECK(brick->keywords == std::vector<std::string>{"NORMALMAP"});
    CHECK(brick->params.at("roughness") == std::vector<double>{0.8});
    REQUIRE(brick->passes.size() == 3);
    const MaterialPass* forward = brick->pass("Forward");
    REQUIRE(forward);
    CHECK(forward->variant == "shaders/lit|Forward|NORMALMAP");

    auto variant = (*set)->variant(forward->variant);
    REQUIRE_MESSAGE(variant, variant.error().message);
    REQUIRE(variant->stage("vert"));
    REQUIRE(variant->stage("frag"));
    // The SPIR-V is valid for Vulkan (spirv-val is the oracle).
    for (const auto& stage : variant->stages) {
      CAPTURE(stage.stage);
      const fs::path spv = dir / (stage.stage + ".spv");
      std::ofstream(spv, std::ios::binary)
          .write(reinterpret_cast<const char*>(stage.spirv.data()), std::streamsize(stage.spirv.size() * 4));
      auto valid = test::run_process({"/usr/bin/spirv-val", "--target-env", "vulkan1.0", spv.string()});
      CHECK_MESSAGE(valid.exit_code == 0, valid.output);
    }

    // The parameter block: the fragment stage's Material block, each value at its reflected offset.
    REQUIRE(forward->blocks.size() == 1);
    const ParameterBlock& block = forward->blocks[0];
    CHECK(block.name == "Material");
    CHECK(block.kind == ParameterBlock::Kind::kUniformBuffer);
    CHECK(block.set == 1);
    CHECK(block.binding == 1);
    const auto base_color = member_of(*variant, "Material", "base_color");
    const auto roughness = member_of(*variant, "Material", "roughness");
    const auto metallic = member_of(*variant, "Material", "metallic");
    REQUIRE(base_color.is_object());
    REQUIRE(roughness.is_object());
    CHECK(roughness["offset"] == 16);  // std140: after a vec4
    const std::vector<float> want = {0.8f, 0.4f, 0.3f, 1.0f};
    for (std::size_t i = 0; i < 4; ++i)
      CHECK(float_at(block.bytes, base_color["offset"].get<std::size_t>() + 4 * i) == want[i]);
    CHECK(float_at(block.bytes, roughness["offset"].get<std::size_t>()) == 0.8f);
    CHECK(float_at(block.bytes, metallic["offset"].get<std::size_t>()) == 0.0f);
    CHECK(float_at(block.bytes, member_of(*variant, "Material", "alpha_cutoff")["offset"].get<std::size_t>()) == 0.0f);

    // Textures: the sampler bindings of the shader, and the .tx each names, read in place.
    REQUIRE(forward->textures.size() == 2);
    for (const auto& t : forward->textures) {
      CAPTURE(t.slot);
      CHECK(t.set == 1);
      CHECK(t.binding == (t.slot == "albedo_map" ? 2u : 3u));
      auto tx = (*set)->texture(t.texture);
      REQUIRE_MESSAGE(tx, tx.error().message);
      CHECK(std::string(reinterpret_cast<const char*>(tx->data()), 2) == "II");  // a little-endian TIFF
    }

    // The compute material: its parameters are push constants.
    auto bloom = (*set)->material("materials/bloom.json");
    REQUIRE(bloom);
    REQUIRE(bloom->passes.size() == 1);
    REQUIRE(bloom->passes[0].blocks.size() == 1);
    CHECK(bloom->passes[0].blocks[0].kind == ParameterBlock::Kind::kPushConstant);
    CHECK(float_at(bloom->passes[0].blocks[0].bytes, 0) == 1.0f);  // threshold
    CHECK(float_at(bloom->passes[0].blocks[0].bytes, 4) == 0.6f);  // intensity

    auto absent = (*set)->material("materials/nope.json");
    REQUIRE_FALSE(absent);
    CHECK(absent.error().message.find(": no entry 'material:materials/nope.json'") != std::string::npos);
  }

  TEST_CASE("records and manifests refuse damaged bytes at every length - never a crash") {
    MaterialRecord m{"materials/m.json",
                     "shaders/lit",
                     {"FOG"},
                     {{"roughness", {0.5}}},
                     {{"albedo_map", "textures/a.png"}},
                     {{"Forward",
                       "shaders/lit|Forward|FOG",
                       {{"Material", ParameterBlock::Kind::kUniformBuffer, 1, 1, std::vector<std::byte>(32)}},
                       {{"albedo_map", "textures/a.png", 1, 2}}}}};
    const auto bytes = encode_material_record(m);
    auto back = decode_material_record(bytes, "m");
    REQUIRE_MESSAGE(back, back.error().message);
    CHECK(encode_material_record(*back) == bytes);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      CAPTURE(n);
      auto cut = decode_material_record(std::span(bytes).first(n), "m");
      REQUIRE_FALSE(cut);
      CHECK(cut.error().message.rfind("m: ", 0) == 0);
    }
    const std::uint32_t spirv_header[] = {0x07230203, 0x00010000, 0, 1, 0};
    VariantRecord v{
        {{"frag", "shaders/x.frag", std::vector<std::uint32_t>(std::begin(spirv_header), std::end(spirv_header)), {}}}};
    const auto vbytes = encode_variant_record(v);
    REQUIRE(decode_variant_record(vbytes, "v"));
    for (std::size_t n = 0; n < vbytes.size(); ++n) CHECK_FALSE(decode_variant_record(std::span(vbytes).first(n), "v"));

    CHECK(decode_manifest("{}", "manifest.json").error().message ==
          "manifest.json: /format: expected \"kiln-cooked-set\"");
    auto escaping = decode_manifest(
        R"({"format": "kiln-cooked-set", "version": 1, "packs": {"shaders": {"file": "../x.pack", "bytes": 1, "checksum": "0123456789abcdef"}}})",
        "manifest.json");
    REQUIRE_FALSE(escaping);
    CHECK(escaping.error().message ==
          "manifest.json: /packs/shaders/file: expected a file name in the cooked directory");
  }
}
