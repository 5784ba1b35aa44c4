#include <doctest/doctest.h>

#include <filesystem>
#include <set>

#include "kiln/materials/material.h"
#include "kiln/materials/material_layout.h"
#include "kiln/materials/shader_declaration.h"
#include "kiln/materials/variant_key.h"
#include "kiln/materials/variant_rules.h"
#include "kiln/shadercache/shader_library.h"

using namespace kiln;
using namespace kiln::materials;
using kiln::shadercache::ShaderLibrary;
namespace fs = std::filesystem;

TEST_SUITE("materials") {
  TEST_CASE("the documented golden digest and canonical keywords") {
    const auto a = VariantKey::create("Lit", "Forward", {"FOG", "SKIN"}, 7);
    CHECK(a.digest() == "2a876a0d5092");
    CHECK(a.keywords == "FOG;SKIN");
    const auto b = VariantKey::create("Lit", "Forward", {"SKIN", "FOG", "FOG"}, 7);
    CHECK(a == b);
    CHECK(VariantKeyHash{}(a) == VariantKeyHash{}(b));
    // Ordinal (byte) order, not locale order: upper case sorts before lower case.
    CHECK(VariantKey::create("S", "P", {"fog", "FOG", "Fog"}, 1).keywords == "FOG;Fog;fog");
    CHECK(a.keyword_list() == std::vector<std::string>{"FOG", "SKIN"});
    CHECK(VariantKey::create("S", "P", {}, 1).keyword_list().empty());
  }

  TEST_CASE("a key keeps the hash of its fields - made once - and one made otherwise is hashed per use") {
    const auto a = VariantKey::create("Lit", "Forward", {"FOG", "SKIN"}, 7);
    CHECK(a.hash != 0);
    CHECK(a.hash == VariantKeyHash::of(a));
    CHECK(VariantKeyHash{}(a) == a.hash);
    // Each field changes the kept hash.
    CHECK(VariantKey::create("Unlit", "Forward", {"FOG", "SKIN"}, 7).hash != a.hash);
    CHECK(VariantKey::create("Lit", "Shadow", {"FOG", "SKIN"}, 7).hash != a.hash);
    CHECK(VariantKey::create("Lit", "Forward", {"FOG"}, 7).hash != a.hash);
    CHECK(VariantKey::create("Lit", "Forward", {"FOG", "SKIN"}, 8).hash != a.hash);
    // A key made field by field hashes as the created one and equals it.
    VariantKey by_hand;
    by_hand.shader = "Lit";
    by_hand.pass = "Forward";
    by_hand.keywords = "FOG;SKIN";
    by_hand.source_revision = 7;
    CHECK(VariantKeyHash{}(by_hand) == a.hash);
    CHECK(by_hand == a);
  }

  TEST_CASE("shader - pass and revision each partition keys") {
    const auto base = VariantKey::create("Lit", "Forward", {"FOG"}, 7);
    CHECK_FALSE(base == VariantKey::create("Lit", "Shadow", {"FOG"}, 7));
    CHECK_FALSE(base == VariantKey::create("Unlit", "Forward", {"FOG"}, 7));
    CHECK_FALSE(base == VariantKey::create("Lit", "Forward", {"FOG"}, 8));
    CHECK_FALSE(base.digest() == VariantKey::create("Lit", "Forward", {"FOG"}, 8).digest());
  }

  TEST_CASE("shader declarations come from #pragma kiln lines") {
    auto d = parse_shader_declaration(
        "lit.frag", "#version 450\n#pragma kiln keywords FOG SKIN\n  #pragma kiln passes Forward Shadow\n");
    REQUIRE(d);
    CHECK(d->keywords == std::set<std::string>{"FOG", "SKIN"});
    CHECK(d->passes == std::set<std::string>{"Forward", "Shadow"});
    auto bad = parse_shader_declaration("lit.frag", "#version 450\n\n#pragma kiln kewords FOG\n");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message.rfind("lit.frag:3: error: unknown '#pragma kiln kewords'", 0) == 0);
    auto spaced = parse_shader_declaration("a.frag", "# pragma kiln keywords A\n");
    REQUIRE(spaced);
    CHECK(spaced->keywords == std::set<std::string>{"A"});
    // Any whitespace the preprocessor allows separates the words, a Windows line end included; a
    // pragma is a directive only at the start of its line.
    auto tabbed =
        parse_shader_declaration("a.frag", "\t#pragma\tkiln keywords  A\v\tB\r\nint x; #pragma kiln keywords C\n");
    REQUIRE(tabbed);
    CHECK(tabbed->keywords == std::set<std::string>{"A", "B"});
    auto clash = parse_shader_declaration("a.frag", "#pragma kiln passes Shadow shadow\n");
    REQUIRE_FALSE(clash);
    CHECK(clash.error().message.find("differ only in case") != std::string::npos);
    const auto merged = merge_declarations({*parse_shader_declaration("a.vert", "#pragma kiln keywords A\n"),
                                            *parse_shader_declaration("a.frag", "#pragma kiln keywords B\n")});
    CHECK(merged.keywords == std::set<std::string>{"A", "B"});
    CHECK(merged.passes == std::set<std::string>{"Main"});
    CHECK_FALSE(merged.declares_passes);
  }

  TEST_CASE("passes keep the order the shader declares them - the first stage's first") {
    const auto d = parse_shader_declaration("a.frag", "#pragma kiln passes Forward Shadow Depth\n");
    REQUIRE(d);
    CHECK(d->pass_order == std::vector<std::string>{"Forward", "Shadow", "Depth"});
    const auto merged =
        merge_declarations({*parse_shader_declaration("a.vert", "#pragma kiln passes Zed Forward\n"),
                            *parse_shader_declaration("a.frag", "#pragma kiln passes Forward Alpha\n")});
    CHECK(merged.pass_order == std::vector<std::string>{"Zed", "Forward", "Alpha"});
    CHECK(merged.passes == std::set<std::string>{"Alpha", "Forward", "Zed"});
    CHECK(merge_declarations({*parse_shader_declaration("a.frag", "#version 450\n")}).pass_order ==
          std::vector<std::string>{"Main"});
  }

  TEST_CASE("an unknown keyword is an error naming it - the shader and the legal set - never dropped") {
    ShaderDeclaration d{{"FOG", "SKIN"}, {"Forward"}, true};
    CHECK(check_variant_request("shaders/lit", d, "Forward", {"FOG"}));
    auto s = check_variant_request("shaders/lit", d, "Forward", {"FOG", "FOGG"});
    REQUIRE_FALSE(s);
    CHECK(s.error().message == "unknown keyword 'FOGG' for shader shaders/lit (legal keywords: FOG SKIN)");
    auto p = check_variant_request("shaders/lit", d, "Shadow", {});
    REQUIRE_FALSE(p);
    CHECK(p.error().message == "shader shaders/lit has no pass 'Shadow' (passes: Forward)");
    for (const char* bad : {"", "A;B", "A|B", "A B", "A\tB", "1X", "FOG=0", "PRE-Z", "GL_FOG", "A__B"})
      CHECK_MESSAGE(!check_keyword_syntax(bad), bad);
    for (const char* good : {"FOG", "_X", "NORMAL_MAP2", "fog"}) CHECK_MESSAGE(check_keyword_syntax(good), good);
  }

  TEST_CASE("a material loads with its shader - keywords - params and textures") {
    auto m = parse_material("m.json", R"({"shader": "shaders/lit", "keywords": ["FOG"], "params": {"roughness": 0.5,
      "tint": [1, 0.5, 0.25, 1]}, "textures": {"albedo": "textures/a.png"}})");
    REQUIRE(m);
    CHECK(m->shader == "shaders/lit");
    CHECK(m->keywords == std::vector<std::string>{"FOG"});
    CHECK(m->params.at("roughness") == std::vector<double>{0.5});
    CHECK(m->params.at("tint").size() == 4);
    CHECK(m->textures.at("albedo") == "textures/a.png");
  }

  TEST_CASE("bad material JSON reports every problem as file: /pointer: problem") {
    auto m = parse_material("mats/bad.json",
                            R"({"keywords": ["FOG", 3, "A B"], "params": {"r": "high", "v": [1, 2, 3, 4, 5]},
      "textures": {"albedo": ""}, "colour": 1})");
    REQUIRE_FALSE(m);
    const std::string& e = m.error().message;
    CHECK(e.find("mats/bad.json: /keywords/1: expected a string, got number") != std::string::npos);
    CHECK(e.find("mats/bad.json: /keywords/2: keyword 'A B' contains ' '") != std::string::npos);
    CHECK(e.find("mats/bad.json: /params/r: expected a number or an array of 1 to 4 numbers") != std::string::npos);
    CHECK(e.find("mats/bad.json: /params/v: expected a number or an array of 1 to 4 numbers") != std::string::npos);
    CHECK(e.find("mats/bad.json: /textures/albedo: expected a texture path") != std::string::npos);
    CHECK(e.find("mats/bad.json: /colour: unknown field") != std::string::npos);
    CHECK(e.find("mats/bad.json: /shader: missing") != std::string::npos);
    auto escaped = parse_material("m.json", R"({"shader": "s", "params": {"a/b~c": "x"}})");
    REQUIRE_FALSE(escaped);
    CHECK(escaped.error().message.rfind("m.json: /params/a~1b~0c: ", 0) == 0);
    auto syntax = parse_material("mats/bad.json", "{\"shader\": \"x\",\n \"keywords\": [}");
    REQUIRE_FALSE(syntax);
    CHECK(syntax.error().message.rfind("mats/bad.json:2:", 0) == 0);
  }

  TEST_CASE("material keywords are checked against the shader's declaration") {
    auto m = parse_material("m.json", R"({"shader": "shaders/lit", "keywords": ["FOG", "GLOW"]})");
    REQUIRE(m);
    auto s = check_material_keywords(*m, ShaderDeclaration{{"FOG", "SKIN"}, {"Forward"}, true});
    REQUIRE_FALSE(s);
    CHECK(s.error().message ==
          "m.json: /keywords/1: unknown keyword 'GLOW' for shader shaders/lit (legal keywords: FOG SKIN)");
  }

  TEST_CASE("ship and invalid pragmas declare shipped keyword sets and forbidden combinations") {
    auto decl = parse_shader_declaration("lit.frag",
                                         "#pragma kiln keywords FOG SKIN ALPHA_TEST\n#pragma kiln ship FOG SKIN\n"
                                         "#pragma kiln ship\n#pragma kiln invalid SKIN ALPHA_TEST\n");
    REQUIRE(decl);
    REQUIRE(decl->ship.size() == 2);
    CHECK(decl->ship[0] == std::set<std::string>{"FOG", "SKIN"});
    CHECK(decl->ship[1].empty());  // the variant without keywords
    REQUIRE(decl->invalid.size() == 1);
    CHECK(decl->invalid[0] == std::set<std::string>{"ALPHA_TEST", "SKIN"});
    auto empty = parse_shader_declaration("x.frag", "#pragma kiln invalid\n");
    REQUIRE_FALSE(empty);
    CHECK(empty.error().message ==
          "x.frag:1: error: '#pragma kiln invalid' needs the keywords that may not be combined");
    auto unknown = parse_shader_declaration("x.frag", "#pragma kiln shipp A\n");
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().message ==
          "x.frag:1: error: unknown '#pragma kiln shipp' (expected keywords, passes, ship, invalid or entry)");
  }

  TEST_CASE("a material's ship sets are checked like its keywords - and may not combine what the shader forbids") {
    auto m = parse_material(
        "m.json", R"({"shader": "s", "keywords": ["SKIN"], "ship": [["FOG"], ["SKIN", "ALPHA_TEST"], ["NOPE"]]})");
    REQUIRE(m);
    REQUIRE(m->ship.size() == 3);
    ShaderDeclaration decl{{"FOG", "SKIN", "ALPHA_TEST"}, {"Forward"}, true, {}, {{"SKIN", "ALPHA_TEST"}}};
    auto s = check_material_keywords(*m, decl);
    REQUIRE_FALSE(s);
    CHECK(s.error().message ==
          "m.json: /ship/1: shader s declares the keywords ALPHA_TEST SKIN invalid together\n"
          "m.json: /ship/2/0: unknown keyword 'NOPE' for shader s (legal keywords: ALPHA_TEST FOG SKIN)");
    auto bad = parse_material("m.json", R"({"shader": "s", "ship": [["FOG", 3]]})");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message == "m.json: /ship/0/1: expected a string, got number");
  }
}

TEST_SUITE("materials") {
  TEST_CASE("the variant plan strips the shipped sets the shader forbids and keeps the used ones to report") {
    ShaderDeclaration decl{{"FOG", "SKIN", "ALPHA_TEST"}, {"Forward"}, true, {}, {{"SKIN", "ALPHA_TEST"}}};
    VariantPlan plan;
    plan.add_material("materials/a.json", "shaders/s", decl, {"FOG"}, {{"SKIN", "ALPHA_TEST"}, {"SKIN"}});
    plan.add_material("materials/b.json", "shaders/s", decl, {"ALPHA_TEST", "SKIN", "FOG"}, {});
    std::set<std::string> names;
    for (const auto& v : plan.variants()) names.insert(v.key.name());
    // The used forbidden set stays (the cook reports it against its material); the shipped one goes.
    CHECK(names == std::set<std::string>{"shaders/s|Forward|ALPHA_TEST;FOG;SKIN", "shaders/s|Forward|FOG",
                                         "shaders/s|Forward|SKIN"});
    CHECK(plan.stripped() == 1);
    CHECK(plan.used() == 2);
  }

  TEST_CASE("a material's parameters are laid out only where the shader declares them with that many components") {
    ShaderLibrary library({.root = fs::path(KILN_SOURCE_DIR) / "assets"});
    auto variant = library.variant("shaders/unlit", "Forward", {"FOG"});
    REQUIRE(variant);
    const std::string name = VariantKey::create("shaders/unlit", "Forward", {"FOG"}, 0).name();
    VariantReflections reflections;
    for (const auto& stage : (*variant)->stages) reflections[name].push_back(&stage.reflection);
    auto lay_out = [&](const std::string& params) {
      auto m =
          parse_material("m.json", R"({"shader": "shaders/unlit", "keywords": ["FOG"], "params": )" + params + "}");
      REQUIRE_MESSAGE(m, m.error().message);
      runtime::MaterialRecord record;
      record.passes.push_back({"Forward", name, {}, {}});
      return lay_out_material(*m, reflections, record);
    };
    CHECK(lay_out(R"({"color": [1, 0.5, 0.25, 1]})"));
    auto short_vector = lay_out(R"({"color": [1, 0.5, 0.25]})");
    REQUIRE_FALSE(short_vector);
    CHECK(short_vector.error().message.find("m.json: /params/color: shader shaders/unlit declares 'color' as vec4, "
                                            "the material gives 3 numbers") != std::string::npos);
    auto scalar = lay_out(R"({"color": 1})");
    REQUIRE_FALSE(scalar);
    CHECK(scalar.error().message.find("the material gives 1 number") != std::string::npos);
  }

  TEST_CASE("a ship pragma ending in always ships its sets whatever usage records say - the plan marks them") {
    auto decl = parse_shader_declaration("lit.frag",
                                         "#pragma kiln keywords FOG SKIN\n#pragma kiln passes Forward Shadow\n"
                                         "#pragma kiln ship FOG\n#pragma kiln ship SKIN always\n"
                                         "#pragma kiln ship always\n");
    REQUIRE(decl);
    // Every set is a ship set; `always` is the marker, not a keyword.
    REQUIRE(decl->ship.size() == 3);
    CHECK(decl->ship[1] == std::set<std::string>{"SKIN"});
    REQUIRE(decl->ship_always.size() == 2);
    CHECK(decl->ship_always[0] == std::set<std::string>{"SKIN"});
    CHECK(decl->ship_always[1].empty());
    const ShaderDeclaration merged = merge_declarations({*decl});
    CHECK(merged.ship_always == decl->ship_always);
    VariantPlan plan;
    plan.add_shader("shaders/lit", merged);
    std::set<std::string> always;
    for (const auto& v : plan.variants())
      if (v.always) always.insert(v.key.name());
    CHECK(always == std::set<std::string>{"shaders/lit|Forward|", "shaders/lit|Forward|SKIN", "shaders/lit|Shadow|",
                                          "shaders/lit|Shadow|SKIN"});
    // An always set still names only declared keywords.
    auto unknown = parse_shader_declaration("x.frag", "#pragma kiln ship FO;G always\n");
    CHECK_FALSE(unknown);
  }
}

TEST_SUITE("materials") {
  TEST_CASE("a parameter block over 1 MiB or with a member outside it is refused - nothing is written past it") {
    // Reflections as a broken tool or a hand-edited cache entry could give them.
    auto reflection_with = [](std::uint32_t block_size, std::uint32_t member_offset) {
      runtime::StageReflection r;
      runtime::ReflectedBinding b;
      b.name = "Material";
      b.kind = runtime::DescriptorKind::kUniformBuffer;
      b.block_size = block_size;
      b.members.push_back({"color", "vec4", 4, 1, 0, member_offset, 16});
      r.bindings.push_back(b);
      return r;
    };
    auto lay_out = [](const runtime::StageReflection& r) {
      VariantReflections reflections;
      reflections["s|Forward|"].push_back(&r);
      auto m = parse_material("m.json", R"({"shader": "s", "params": {"color": [1, 0.5, 0.25, 1]}})");
      REQUIRE_MESSAGE(m, m.error().message);
      runtime::MaterialRecord record;
      record.passes.push_back({"Forward", "s|Forward|", {}, {}});
      auto laid = lay_out_material(*m, reflections, record);
      return laid ? std::string("(laid out)") : laid.error().message;
    };
    CHECK(lay_out(reflection_with(32, 16)) == "(laid out)");
    CHECK(lay_out(reflection_with(std::uint32_t{2} << 20, 0)) ==
          "m.json: variant s|Forward|: block Material of 2097152 bytes (at most 1 MiB)");
    CHECK(
        lay_out(reflection_with(32, 24)) ==
        "m.json: variant s|Forward|: block Material: member color (16 bytes at offset 24) lies outside the block's 32 "
        "bytes");
    CHECK(lay_out(reflection_with(16, 0xfffffff8u)).find("lies outside the block's 16 bytes") != std::string::npos);
  }
}

TEST_SUITE("materials") {
  TEST_CASE("a texture slot on a separate image binds its sampler_ sampler as well - and no other separate sampler") {
    // An HLSL fragment stage's resources: Texture2D albedo, SamplerState sampler_albedo and point_clamp.
    runtime::StageReflection r;
    auto add = [&r](const char* name, runtime::DescriptorKind kind, std::uint32_t binding) {
      runtime::ReflectedBinding b;
      b.name = name;
      b.kind = kind;
      b.set = 1;
      b.binding = binding;
      r.bindings.push_back(b);
    };
    add("albedo", runtime::DescriptorKind::kSampledImage, 0);
    add("sampler_albedo", runtime::DescriptorKind::kSampler, 2);
    add("point_clamp", runtime::DescriptorKind::kSampler, 3);
    VariantReflections reflections;
    reflections["s|Forward|"].push_back(&r);
    auto m = parse_material("m.json", R"({"shader": "s", "textures": {"albedo": "textures/brick.png"}})");
    REQUIRE_MESSAGE(m, m.error().message);
    runtime::MaterialRecord record;
    record.passes.push_back({"Forward", "s|Forward|", {}, {}});
    auto laid = lay_out_material(*m, reflections, record);
    REQUIRE_MESSAGE(laid, laid.error().message);
    std::set<std::uint32_t> bindings;
    for (const auto& t : record.passes[0].textures) {
      CHECK(t.slot == "albedo");
      CHECK(t.texture == "textures/brick.png");
      CHECK(t.set == 1);
      bindings.insert(t.binding);
    }
    CHECK(bindings == std::set<std::uint32_t>{0, 2});
    // A sampler is not a slot: a material names the texture.
    auto wrong = parse_material("m.json", R"({"shader": "s", "textures": {"sampler_albedo": "textures/brick.png"}})");
    REQUIRE(wrong);
    laid = lay_out_material(*wrong, reflections, record);
    REQUIRE_FALSE(laid);
    CHECK(laid.error().message.find("has no texture slot 'sampler_albedo' (the only one is albedo)") !=
          std::string::npos);
  }

  TEST_CASE("#pragma kiln entry names one function - once") {
    auto decl = parse_shader_declaration("x.frag.hlsl", "#pragma kiln entry PSMain\n#pragma kiln entry PSMain\n");
    REQUIRE(decl);
    CHECK(decl->entry == "PSMain");
    CHECK(merge_declarations({*decl}).entry.empty());  // each stage file's own
    auto two = parse_shader_declaration("x.frag.hlsl", "#pragma kiln entry A\n#pragma kiln entry B\n");
    REQUIRE_FALSE(two);
    CHECK(two.error().message == "x.frag.hlsl:2: error: '#pragma kiln entry B': the entry point is already A");
    auto none = parse_shader_declaration("x.frag.hlsl", "#pragma kiln entry\n");
    REQUIRE_FALSE(none);
    CHECK(none.error().message ==
          "x.frag.hlsl:1: error: '#pragma kiln entry' names one function, the stage's entry point");
    auto odd = parse_shader_declaration("x.frag.hlsl", "#pragma kiln entry 2fast\n");
    REQUIRE_FALSE(odd);
    CHECK(odd.error().message.find("not a function name") != std::string::npos);
  }
}
