#include <doctest/doctest.h>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "../../engine/runtime/src/flat_json.h"
#include "../../engine/runtime/src/reflection_document.h"
#include "kiln/runtime/reflection.h"
#include "kiln/runtime/shader_target.h"
#include "kiln/shadercache/shader_library.h"

using namespace kiln;
using namespace kiln::runtime;
namespace fs = std::filesystem;

namespace {

// A reflection with every field set, so that a field the encoder or decoder drops shows.
StageReflection everything() {
  StageReflection r;
  r.entry_point = "main";
  BlockMember view{"view", "mat4", 4, 4, 0, 0, 64, 0, 16};
  BlockMember tints{"tints", "vec4", 4, 1, 3, 64, 48, 16, 0};
  r.bindings.push_back({0, 0, "Camera", DescriptorKind::kUniformBuffer, 1, 112, {view, tints}, {Backend::kMsl, {}, 2}});
  r.bindings.push_back(
      {1, 2, "albedo", DescriptorKind::kCombinedImageSampler, 4, std::nullopt, {}, {Backend::kMsl, {}, {}, 1, 3}});
  r.push_constants.push_back({"pc", "Push", 64, {view}, {{0, 0, 64}}, {Backend::kMsl, {}, 3}});
  r.inputs = {{0, "in_position", "vec3"}, {3, "in_tangent", "vec4"}};
  r.outputs = {{0, "out_color", "vec4"}};
  r.specialization_constants = {{7, "LIGHT_COUNT", "int"}};
  r.local_size = std::array<std::uint32_t, 3>{8, 4, 1};
  return r;
}

// everything() with the fields of the newer stages too.
StageReflection everything_else() {
  StageReflection r = everything();
  r.inputs.push_back({4, "in_prim", "vec2", true});
  r.ray_variables = {{RayVariableKind::kRayPayload, "radiance", "vec3", 12}};
  r.shader_record = StructVariable{"record", "Record", 16, {BlockMember{"tint", "vec4", 4, 1, 0, 0, 16}}};
  r.task_payload = StructVariable{"payload", "Payload", 4, {BlockMember{"count", "uint", 1, 1, 0, 0, 4}}};
  r.mesh_output = MeshOutput{64, 124, "triangles"};
  r.unavailable = "SPIRV-Cross could not read it";
  return r;
}

// decode_reflection (flat where it can) gives what the full reader gives: the value or the message.
void same_as_document(const std::string& text) {
  const auto flat = decode_reflection(text, "x");
  const auto whole = decode_reflection_document(text, "x");
  REQUIRE(flat.ok() == whole.ok());
  if (flat)
    CHECK(*flat == *whole);
  else
    CHECK(flat.error().message == whole.error().message);
}

std::string refused(const std::string& text) {
  auto r = decode_reflection(text, "x.pack: v: vert");
  REQUIRE_FALSE(r);
  CHECK(r.error().message.rfind("x.pack: v: vert: ", 0) == 0);
  return r.error().message;
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("every descriptor kind and backend has one stored name that reads back") {
    std::set<std::string_view> names;
    for (int k = 0; k <= int(DescriptorKind::kAccelerationStructure); ++k) {
      const auto kind = DescriptorKind(k);
      names.insert(descriptor_kind_name(kind));
      CHECK(descriptor_kind_named(descriptor_kind_name(kind)) == kind);
    }
    CHECK(names.size() == std::size_t(DescriptorKind::kAccelerationStructure) + 1);
    CHECK_FALSE(descriptor_kind_named("uniform"));
    // The slots a backend without descriptor sets gives each kind.
    CHECK(takes_buffer_slot(DescriptorKind::kStorageBuffer));
    CHECK(takes_texture_slot(DescriptorKind::kCombinedImageSampler));
    CHECK(takes_sampler_slot(DescriptorKind::kCombinedImageSampler));
    CHECK_FALSE(takes_sampler_slot(DescriptorKind::kSampledImage));
    CHECK_FALSE(takes_texture_slot(DescriptorKind::kUniformBuffer));
    for (int b = 0; b <= int(Backend::kMsl); ++b) {
      CHECK(backend_named(backend_name(Backend(b))) == Backend(b));
      CHECK(backend_names().find(backend_name(Backend(b))) != std::string::npos);  // what messages list
    }
    CHECK_FALSE(backend_named("metal"));
  }

  TEST_CASE("every target environment has one stored name - and a target's id names both columns") {
    for (std::size_t e = 0; e < kTargetEnvCount; ++e) {
      const auto env = TargetEnv(e);
      CHECK(parse_target_env(target_env_name(env)) == env);
      CHECK(target_env_names().find(target_env_name(env)) != std::string::npos);
    }
    CHECK(kTargetEnvCount == std::size_t(TargetEnv::kVulkan1_3) + 1);
    CHECK_FALSE(parse_target_env("vulkan2.0"));
    CHECK(ShaderTarget{}.id() == "spirv-vulkan1.0");
    CHECK(ShaderTarget{Backend::kHlsl, TargetEnv::kVulkan1_2, 0}.id() == "hlsl-vulkan1.2");
  }

  TEST_CASE("a reflection encodes to its stored form and decodes to the same value") {
    const StageReflection r = everything();
    const std::string text = encode_reflection(r);
    const auto json = nlohmann::json::parse(text);
    CHECK(json["format"] == kReflectionFormat);
    CHECK(json["bindings"][0]["kind"] == "uniform_buffer");
    CHECK(json["bindings"][0]["msl"] == nlohmann::json{{"buffer", 2}});
    CHECK(json["bindings"][1]["msl"] == nlohmann::json{{"texture", 1}, {"sampler", 3}});
    CHECK_FALSE(json["bindings"][1].contains("members"));  // not a buffer
    auto back = decode_reflection(text, "x");
    REQUIRE_MESSAGE(back, back.error().message);
    CHECK(*back == r);
    // What any decoded reflection holds encodes back to itself: members without a block size too.
    StageReflection odd = r;
    odd.bindings[1].members = {BlockMember{"m", "float", 1, 1, 0, 0, 4}};
    auto odd_back = decode_reflection(encode_reflection(odd), "x");
    REQUIRE(odd_back);
    CHECK(*odd_back == odd);
    // A name that is not UTF-8 (it comes from the SPIR-V) is written replaced, not thrown on.
    StageReflection bytes = r;
    bytes.entry_point = "ma\xffin";
    auto bytes_back = decode_reflection(encode_reflection(bytes), "x");
    REQUIRE(bytes_back);
    CHECK(bytes_back->entry_point == "ma\xef\xbf\xbdin");
    // A compiled shader's reflection too.
    shadercache::ShaderLibrary library({.root = fs::path(KILN_SOURCE_DIR) / "assets"});
    auto v = library.variant("shaders/lit", "Forward", {"NORMALMAP"});
    REQUIRE_MESSAGE(v, v.error().message);
    for (const auto& stage : (*v)->stages) {
      auto decoded = decode_reflection(encode_reflection(stage.reflection), stage.file);
      REQUIRE(decoded);
      CHECK(*decoded == stage.reflection);
      CHECK(check_reflection(stage.reflection, stage.spirv));
    }
  }

  TEST_CASE("a reflection that is not what Kiln writes is refused naming the field") {
    const auto good = nlohmann::json::parse(encode_reflection(everything()));
    auto with = [&](const std::string& pointer, const nlohmann::json& value) {
      auto j = good;
      j[nlohmann::json::json_pointer(pointer)] = value;
      return j.dump();
    };
    auto without = [&](const std::string& pointer) {
      auto j = good;
      const nlohmann::json::json_pointer p(pointer);
      j[p.parent_pointer()].erase(p.back());
      return j.dump();
    };
    CHECK(refused("{\"bindings\": [") == "x.pack: v: vert: the reflection is not JSON");
    CHECK(refused("[]").find(": /: not an object") != std::string::npos);
    CHECK(refused(with("/format", 3)).find("format 3, this Kiln reads format " + std::to_string(kReflectionFormat)) !=
          std::string::npos);
    CHECK(refused(without("/format")).find("/format: missing") != std::string::npos);
    CHECK(refused(with("/bindings", nullptr)).find("/bindings: not a list") != std::string::npos);
    CHECK(refused(with("/bindings", nlohmann::json::object())).find("/bindings: not a list") != std::string::npos);
    CHECK(refused(without("/bindings/1/name")).find("/bindings/1/name: missing") != std::string::npos);
    CHECK(refused(with("/bindings/0/kind", "texture")).find("/bindings/0/kind: descriptors of kind 'texture'") !=
          std::string::npos);
    CHECK(refused(with("/inputs/1/type", 3)).find("/inputs/1/type: not a string") != std::string::npos);
    CHECK(refused(with("/local_size", {1, 1})).find("/local_size: not three numbers") != std::string::npos);
    CHECK(refused(with("/bindings/0/glsl", {{"binding", 0}})).find("slots of two backends") != std::string::npos);
    // Numbers that are not unsigned 32-bit integers, wherever they stand.
    for (const char* bad : {"1e300", "2.5", "-1", "4294967296", "true", "\"0\""}) {
      CAPTURE(bad);
      for (const char* pointer : {"/bindings/0/set", "/bindings/0/count", "/push_constants/0/size", "/local_size/0",
                                  "/bindings/0/members/1/offset", "/bindings/0/msl/buffer"}) {
        CAPTURE(pointer);
        CHECK(refused(with(pointer, nlohmann::json::parse(bad)))
                  .find(std::string(pointer) + ": not a whole number from 0 to 4294967295") != std::string::npos);
      }
    }
  }

  TEST_CASE(
      "a reflection read flat is the one the full reader reads - every byte changed or deleted gives its result") {
    StageReflection escaped = everything_else();
    escaped.entry_point = "ma\"in\n";  // names a JSON writer must escape
    std::vector<std::string> texts = {encode_reflection(everything_else()), encode_reflection(everything()),
                                      encode_reflection(escaped)};
    shadercache::ShaderLibrary library({.root = fs::path(KILN_SOURCE_DIR) / "assets"});
    auto v = library.variant("shaders/lit", "Forward", {"NORMALMAP"});
    REQUIRE_MESSAGE(v, v.error().message);
    for (const auto& stage : (*v)->stages) texts.push_back(encode_reflection(stage.reflection));
    // What the encoder writes of plain names is read flat; a name with escapes is not.
    CHECK_FALSE(FlatDocument::parse(texts[2]));
    for (std::size_t i = 0; i < texts.size(); ++i) {
      CAPTURE(i);
      same_as_document(texts[i]);
      // All but the escaped one are read flat: the fast reading is the one taken.
      const auto flat = decode_reflection_flat(texts[i]);
      CHECK(flat.has_value() == (i != 2));
      if (flat) CHECK(*flat == *decode_reflection_document(texts[i], "x"));
    }
    // Every byte of the reflection with every field replaced by what changes a value, a type or the
    // structure, or deleted.
    const std::string& text = texts[0];
    for (std::size_t i = 0; i < text.size(); ++i) {
      CAPTURE(i);
      for (const char c : {'0', '"', '\\', '.', '\x80'}) {
        std::string changed = text;
        changed[i] = c;
        same_as_document(changed);
      }
      same_as_document(text.substr(0, i) + text.substr(i + 1));
    }
  }

  TEST_CASE("the flat reader declines what it would read otherwise than a JSON parser") {
    CHECK(FlatDocument::parse(R"({"a":[1,2,{"b":"c"}],"d":true,"e":false,"f":null} )"));
    CHECK(FlatDocument::parse("18446744073709551615"));
    for (const char* declined :
         {R"({"a":1,"a":2})", R"({"a":"b\"c"})", "{\"a\":\"\xc3\xa9\"}", "{\"a\":\"b\tc\"}", "-1", "1.5", "1e3", "01",
          "18446744073709551616", "[1,]", "{\"a\":1,}", "[1] 2", "", "nul", "tru"}) {
      CAPTURE(declined);
      CHECK_FALSE(FlatDocument::parse(declined));
    }
    // An object of more members than the duplicate check is made for.
    std::string wide = "{";
    for (std::size_t i = 0; i < FlatDocument::kMaxMembers; ++i) wide += "\"k" + std::to_string(i) + "\":0,";
    CHECK(FlatDocument::parse(wide.substr(0, wide.size() - 1) + "}"));
    CHECK_FALSE(FlatDocument::parse(wide + "\"last\":0}"));
    std::string deep(FlatDocument::kMaxDepth + 1, '[');
    deep += std::string(FlatDocument::kMaxDepth + 1, ']');
    CHECK(FlatDocument::parse(deep));
    CHECK_FALSE(FlatDocument::parse("[" + deep + "]"));
    // A duplicate key: the full reader keeps the last; read flat it would be the first.
    const std::string text = encode_reflection(everything());
    std::string twice = text;
    twice.insert(1, "\"entry_point\":\"first\",");
    CHECK_FALSE(FlatDocument::parse(twice));
    same_as_document(twice);
  }
}
