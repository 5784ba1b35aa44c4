#include <doctest/doctest.h>

#include <set>

#include <nlohmann/json.hpp>

#include <atomic>
#include <barrier>
#include <fstream>
#include <map>
#include <thread>

#include "child_process.h"
#include "kiln/materials/material.h"
#include "kiln/shadercache/shader_library.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
using namespace kiln::shadercache;
namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::trunc) << text; }

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

void replace_in(const fs::path& p, const std::string& from, const std::string& to) {
  std::string text = read_text(p);
  const auto at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from << " not in " << p);
  text.replace(at, from.size(), to);
  write_text(p, text);
}

std::unique_ptr<cache::BlobStore> open_store(const fs::path& root) {
  auto s = cache::BlobStore::open({.root = root, .background_writes = false});
  REQUIRE(s);
  return std::move(*s);
}

}  // namespace

TEST_SUITE("shadercache") {
  TEST_CASE("every sample variant is valid SPIR-V and byte-identical to glslangValidator's") {
    test::TempDir dir("spv");
    const fs::path assets = fs::path(KILN_SOURCE_DIR) / "assets";
    ShaderLibrary library({.root = assets});
    int compared = 0;
    for (const auto& entry : fs::directory_iterator(assets / "materials")) {
      auto material = materials::load_material(entry.path().string());
      REQUIRE_MESSAGE(material, material.error().message);
      auto program = library.program(material->shader);
      REQUIRE_MESSAGE(program, program.error().message);
      const ShaderProgram& prog = **program;
      REQUIRE(materials::check_material_keywords(*material, prog.declaration));
      for (const std::string& pass : prog.declaration.passes) {
        auto variant = library.variant(material->shader, pass, material->keywords);
        REQUIRE_MESSAGE(variant, variant.error().message);
        REQUIRE((*variant)->stages.size() == prog.stage_files.size());
        for (const CompiledStage& stage : (*variant)->stages) {
          const fs::path ours = dir / ("kiln-" + std::to_string(compared) + ".spv");
          std::ofstream(ours, std::ios::binary)
              .write(reinterpret_cast<const char*>(stage.spirv.data()), std::streamsize(stage.spirv.size() * 4));
          auto val = test::run_process({"/usr/bin/spirv-val", "--target-env", "vulkan1.0", ours.string()});
          CHECK_MESSAGE(val.exit_code == 0, stage.file << " " << pass << ": " << val.output);

          std::vector<std::string> argv = {"/usr/bin/glslangValidator", "-V"};
          for (const auto& k : material->keywords) argv.push_back("-D" + k + "=1");
          if (prog.declaration.declares_passes) argv.push_back("-D" + materials::pass_define(pass) + "=1");
          const fs::path reference = dir / ("ref-" + std::to_string(compared) + ".spv");
          argv.insert(argv.end(), {(assets / stage.file).string(), "-o", reference.string()});
          auto ref = test::run_process(argv);
          REQUIRE_MESSAGE(ref.exit_code == 0, ref.output);
          CHECK_MESSAGE(read_text(ours) == read_text(reference),
                        stage.file << " pass " << pass << " differs from glslangValidator");
          ++compared;
        }
      }
    }
    CHECK(compared >= 20);
  }

  TEST_CASE("every spelling of a shader id names one shader - as its normal path") {
    shadercache::ShaderLibrary library({.root = KILN_SOURCE_DIR "/assets"});
    for (const std::string spelling : {"shaders/lit", "./shaders/lit", "shaders//lit", "shaders/./lit",
                                       "shaders/x/../lit", "./shaders/../shaders/lit"}) {
      CAPTURE(spelling);
      const auto key = library.key(spelling, "Forward", {"FOG"});
      CHECK(key.shader == fs::path(spelling).lexically_normal().generic_string());
      CHECK(key.shader == "shaders/lit");
      CHECK(key.digest() == library.key("shaders/lit", "Forward", {"FOG"}).digest());
    }
    // Already-normal ids pass unchanged, whatever their characters.
    for (const std::string id : {"shaders/lit", "a.b/c..d", "x/.hidden/y", "lit"})
      CHECK(library.key(id, "Main", {}).shader == id);
  }

  TEST_CASE("the target environment reaches the SPIR-V as glslangValidator's --target-env does") {
    test::TempDir dir("spv");
    const fs::path assets = fs::path(KILN_SOURCE_DIR) / "assets";
    ShaderLibrary library({.root = assets, .target = TargetEnv::kVulkan1_2});
    auto variant = library.variant("shaders/post_bloom", "Main", {"HDR"});
    REQUIRE(variant);
    const auto& spirv = (*variant)->stages.at(0).spirv;
    CHECK(spirv.at(1) == 0x00010500u);  // SPIR-V 1.5 for Vulkan 1.2
    std::ofstream(dir / "k.spv", std::ios::binary)
        .write(reinterpret_cast<const char*>(spirv.data()), std::streamsize(spirv.size() * 4));
    auto ref = test::run_process({"/usr/bin/glslangValidator", "-V", "--target-env", "vulkan1.2", "-DHDR=1",
                                  (assets / "shaders/post_bloom.comp").string(), "-o", (dir / "r.spv").string()});
    REQUIRE(ref.exit_code == 0);
    CHECK(read_text(dir / "k.spv") == read_text(dir / "r.spv"));
  }

  TEST_CASE("eight threads asking for one variant compile it once" * doctest::test_suite("shadercache/concurrent")) {
    ShaderLibrary library({.root = fs::path(KILN_SOURCE_DIR) / "assets"});
    std::barrier start(8);
    std::vector<std::thread> threads;
    std::vector<const CompiledVariant*> seen(8);
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        auto v = library.variant("shaders/lit", "Forward", {"FOG", "SKIN"});
        REQUIRE(v);
        seen[t] = v->get();
      });
    }
    for (auto& t : threads) t.join();
    CHECK(library.stats().compiles == 1);
    CHECK(library.cache().compiles() == 1);
    CHECK(library.cache().requests() == 8);
    for (auto* p : seen) CHECK(p == seen[0]);
  }

  TEST_CASE("an include edit invalidates every shader that includes it and nothing else") {
    test::TempDir dir("incl");
    const fs::path assets = test::copy_assets(dir, "assets");
    ShaderLibrary library({.root = assets});
    REQUIRE(library.variant("shaders/lit", "Forward", {"FOG"}));
    REQUIRE(library.variant("shaders/lit", "Shadow", {}));
    REQUIRE(library.variant("shaders/unlit", "Forward", {"FOG"}));
    REQUIRE(library.variant("shaders/post_bloom", "Main", {}));
    CHECK(library.cache().count() == 4);

    auto affected = library.file_changed("shaders/common/lighting.glsl");
    CHECK(affected == std::vector<std::string>{"shaders/lit"});
    CHECK(library.cache().count() == 2);  // both lit variants went, unlit and bloom stayed
    CHECK(library.revision("shaders/lit") == 2);
    CHECK(library.revision("shaders/unlit") == 1);

    affected = library.file_changed(assets / "shaders/common/camera.glsl");
    CHECK(affected == std::vector<std::string>{"shaders/lit", "shaders/unlit"});
    CHECK(library.cache().count() == 1);
    const auto compiles = library.stats().compiles;
    REQUIRE(library.variant("shaders/post_bloom", "Main", {}));
    CHECK(library.stats().compiles == compiles);  // untouched: still a hit
  }

  TEST_CASE("a resolved variant handle serves its variant untouched until an edit - then the new revision") {
    test::TempDir dir("handle");
    const fs::path assets = test::copy_assets(dir, "assets");
    ShaderLibrary library({.root = assets});
    auto lit = library.resolve("shaders/lit", "Forward", {"FOG"});
    auto unlit = library.resolve("shaders/unlit", "Forward", {});
    REQUIRE(lit);
    REQUIRE(unlit);
    auto first = library.current(*lit);
    REQUIRE(first);
    CHECK(*first == lit->variant.get());
    // The check touches neither the cache nor the library's maps: no request counted.
    const auto requests = library.cache().requests();
    for (int i = 0; i < 100; ++i) CHECK(*library.current(*lit) == *first);
    CHECK(library.cache().requests() == requests);
    // A file no shader reads changes nothing.
    CHECK(library.file_changed("textures/unused.png").empty());
    CHECK(*library.current(*lit) == *first);
    CHECK(library.cache().requests() == requests);

    // An edit of an include of lit: its handle resolves the new revision, compiled once.
    replace_in(assets / "shaders/common/lighting.glsl", "const float PI = 3.14159265359;",
               "const float PI = 3.14159265359;\nconst float KILN_EDITED = 1.0;");
    const auto compiles = library.stats().compiles;
    REQUIRE(library.file_changed("shaders/common/lighting.glsl") == std::vector<std::string>{"shaders/lit"});
    auto second = library.current(*lit);
    REQUIRE(second);
    CHECK(*second != *first);
    CHECK(library.stats().compiles == compiles + 1);
    CHECK(*library.current(*lit) == *second);
    CHECK(library.stats().compiles == compiles + 1);
    // Unlit's variant did not change: its handle looks once more and finds the same one.
    const CompiledVariant* unlit_before = unlit->variant.get();
    CHECK(*library.current(*unlit) == unlit_before);
    CHECK(library.stats().compiles == compiles + 1);
  }

  TEST_CASE("a new process's library hits the disk - and another backend's namespace serves nothing") {
    test::TempDir dir("disk");
    const fs::path assets = fs::path(KILN_SOURCE_DIR) / "assets";
    {
      auto store = open_store(dir / "cache");
      ShaderLibrary first({.root = assets, .store = store.get()});
      REQUIRE(first.variant("shaders/lit", "Forward", {"FOG", "NORMALMAP"}));
      REQUIRE(first.variant("shaders/unlit", "Forward", {}));
      CHECK(first.stats().compiles == 2);
      CHECK(first.stats().disk_misses == 2);
    }
    {
      auto store = open_store(dir / "cache");
      ShaderLibrary second({.root = assets, .store = store.get()});
      auto v = second.variant("shaders/lit", "Forward", {"NORMALMAP", "FOG"});
      REQUIRE(v);
      CHECK((*v)->from_disk);
      REQUIRE(second.variant("shaders/unlit", "Forward", {}));
      CHECK(second.stats().compiles == 0);
      CHECK(second.stats().disk_hits == 2);
      CHECK((*v)->stages.size() == 2);
      CHECK_FALSE((*v)->stages[1].reflection.bindings.empty());
    }
    {
      auto store = open_store(dir / "cache");
      ShaderLibrary glsl({.root = assets, .backend = Backend::kGlsl, .store = store.get()});
      auto v = glsl.variant("shaders/lit", "Forward", {"FOG", "NORMALMAP"});
      REQUIRE(v);
      CHECK(glsl.stats().disk_hits == 0);
      CHECK(glsl.stats().compiles == 1);
      CHECK((*v)->stages[1].backend_source.find("#version 450") != std::string::npos);
    }
  }

  TEST_CASE("content_key is the key the store holds the variant under - and an include edit changes it") {
    test::TempDir dir("disk");
    const fs::path project = dir / "project";
    fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", project, fs::copy_options::recursive);
    auto store = open_store(dir / "cache");
    ShaderLibrary library({.root = project, .store = store.get()});
    const auto key = library.key("shaders/lit", "Forward", {"FOG"});
    auto content = library.content_key(key);
    REQUIRE(content);
    REQUIRE(*content);
    CHECK(library.stats().compiles == 0);  // a key compiles nothing
    REQUIRE(library.variant("shaders/lit", "Forward", {"FOG"}));
    CHECK(store->get(*library.disk_namespace(), **content));
    auto other = library.content_key(library.key("shaders/lit", "Forward", {}));
    REQUIRE(other);
    CHECK((*other)->hash != (*content)->hash);

    // The key is read once per revision: an edit counts once the library is told of it.
    std::ofstream(project / "shaders" / "common" / "lighting.glsl", std::ios::app) << "\n// an edit\n";
    library.file_changed(project / "shaders" / "common" / "lighting.glsl");
    auto edited = library.content_key(library.key("shaders/lit", "Forward", {"FOG"}));
    REQUIRE(edited);
    CHECK((*edited)->hash != (*content)->hash);
  }

  TEST_CASE("one store under two target environments serves each its own SPIR-V") {
    test::TempDir dir("targets");
    const fs::path assets = fs::path(KILN_SOURCE_DIR) / "assets";
    auto store = open_store(dir / "cache");
    {
      ShaderLibrary old_target({.root = assets, .target = TargetEnv::kVulkan1_0, .store = store.get()});
      auto v = old_target.variant("shaders/post_bloom", "Main", {"HDR"});
      REQUIRE(v);
      CHECK((*v)->stages.at(0).spirv.at(1) == 0x00010000u);  // SPIR-V 1.0
    }
    ShaderLibrary new_target({.root = assets, .target = TargetEnv::kVulkan1_2, .store = store.get()});
    auto v = new_target.variant("shaders/post_bloom", "Main", {"HDR"});
    REQUIRE(v);
    CHECK(new_target.stats().disk_hits == 0);
    CHECK(new_target.stats().compiles == 1);
    CHECK((*v)->stages.at(0).spirv.at(1) == 0x00010500u);  // SPIR-V 1.5 for Vulkan 1.2
  }

  TEST_CASE("two keyword sets of one shader through the disk store come back each as compiled alone") {
    test::TempDir dir("keywords");
    const fs::path assets = fs::path(KILN_SOURCE_DIR) / "assets";
    const std::vector<std::vector<std::string>> sets = {{}, {"NORMALMAP"}, {"FOG"}, {"FOG", "NORMALMAP"}};
    {
      auto store = open_store(dir / "cache");
      ShaderLibrary first({.root = assets, .store = store.get()});
      for (const auto& keywords : sets) REQUIRE(first.variant("shaders/lit", "Forward", keywords));
      CHECK(first.stats().compiles == sets.size());
    }
    auto store = open_store(dir / "cache");
    ShaderLibrary second({.root = assets, .store = store.get()});
    ShaderLibrary alone({.root = assets});  // no store: what each set compiles to
    std::set<std::vector<std::uint32_t>> distinct;
    for (const auto& keywords : sets) {
      CAPTURE(keywords.size());
      auto stored = second.variant("shaders/lit", "Forward", keywords);
      auto compiled = alone.variant("shaders/lit", "Forward", keywords);
      REQUIRE(stored);
      REQUIRE(compiled);
      CHECK((*stored)->from_disk);
      for (std::size_t s = 0; s < (*compiled)->stages.size(); ++s) {
        CHECK((*stored)->stages.at(s).spirv == (*compiled)->stages.at(s).spirv);
        CHECK((*stored)->stages.at(s).reflection.bindings.size() ==
              (*compiled)->stages.at(s).reflection.bindings.size());
      }
      distinct.insert((*stored)->stages.back().spirv);
    }
    CHECK(second.stats().compiles == 0);
    CHECK(distinct.size() == sets.size());  // every set is its own code
  }

  TEST_CASE("an include edited to other text of the same length is compiled again - never served from the disk store") {
    test::TempDir dir("include-edit");
    const fs::path assets = test::copy_assets(dir, "assets");
    const fs::path fog = assets / "shaders/common/fog.glsl";
    std::vector<std::uint32_t> before;
    {
      auto store = open_store(dir / "cache");
      ShaderLibrary library({.root = assets, .store = store.get()});
      auto v = library.variant("shaders/unlit", "Forward", {"FOG"});
      REQUIRE(v);
      before = (*v)->stages.at(1).spirv;
      const std::string text = read_text(fog);
      replace_in(fog, "clamp(f, 0.0, 1.0)", "clamp(f, 0.0, 0.5)");  // same length, other code
      REQUIRE(read_text(fog).size() == text.size());
      library.file_changed(fog);
      auto edited = library.variant("shaders/unlit", "Forward", {"FOG"});
      REQUIRE(edited);
      CHECK(library.stats().compiles == 2);
      CHECK((*edited)->stages.at(1).spirv != before);
    }
    // A new process on the same store: the edited text's variant, not the first one.
    auto store = open_store(dir / "cache");
    ShaderLibrary again({.root = assets, .store = store.get()});
    auto v = again.variant("shaders/unlit", "Forward", {"FOG"});
    REQUIRE(v);
    CHECK((*v)->stages.at(1).spirv != before);
    // What the text on disk compiles to, with no store at all.
    ShaderLibrary fresh({.root = assets});
    auto compiled = fresh.variant("shaders/unlit", "Forward", {"FOG"});
    REQUIRE(compiled);
    CHECK((*v)->stages.at(1).spirv == (*compiled)->stages.at(1).spirv);
  }

  TEST_CASE("a broken edit reports file:line - keeps the last good variant - a fix recovers - a revert hits the disk") {
    test::TempDir dir("broken");
    const fs::path assets = test::copy_assets(dir, "assets");
    auto store = open_store(dir / "cache");
    ShaderLibrary library({.root = assets, .store = store.get()});
    const fs::path frag = assets / "shaders/unlit.frag";
    const std::string original = read_text(frag);
    auto good = library.variant("shaders/unlit", "Forward", {"FOG"});
    REQUIRE(good);

    replace_in(frag, "out_color = c;", "out_color = c + undefined_thing;");
    library.file_changed(frag);
    const auto writes_before = store->stats().writes;
    auto broken = library.variant("shaders/unlit", "Forward", {"FOG"});
    REQUIRE_FALSE(broken);
    CHECK(store->stats().writes == writes_before);  // a failed compile is never stored
    CHECK(broken.error().message.find(frag.string() + ":29: error:") != std::string::npos);
    CHECK(broken.error().message.find("undefined_thing") != std::string::npos);
    auto last = library.cache().last_good(library.key("shaders/unlit", "Forward", {"FOG"}));
    REQUIRE(last);
    CHECK(last->variant.get() == good->get());
    CHECK(last->revision == 1);  // stale: the current revision is 2
    CHECK(library.revision("shaders/unlit") == 2);

    // An error in an include names the include's line.
    write_text(frag, original);
    replace_in(assets / "shaders/common/fog.glsl", "float d =", "float d = nope +");
    library.file_changed(assets / "shaders/common/fog.glsl");
    auto in_include = library.variant("shaders/unlit", "Forward", {"FOG"});
    REQUIRE_FALSE(in_include);
    CHECK(in_include.error().message.find((assets / "shaders/common/fog.glsl").string() + ":6: error:") !=
          std::string::npos);

    // Reverting to content the store has seen is a disk hit, not a compile.
    replace_in(assets / "shaders/common/fog.glsl", "float d = nope +", "float d =");
    library.file_changed(assets / "shaders/common/fog.glsl");
    const auto compiles = library.stats().compiles;
    auto fixed = library.variant("shaders/unlit", "Forward", {"FOG"});
    REQUIRE(fixed);
    CHECK((*fixed)->from_disk);
    CHECK(library.stats().compiles == compiles);
    CHECK(library.cache().last_good(library.key("shaders/unlit", "Forward", {"FOG"}))->revision == 4);
  }

  TEST_CASE("an unknown keyword or pass is refused before any compile") {
    ShaderLibrary library({.root = fs::path(KILN_SOURCE_DIR) / "assets"});
    auto v = library.variant("shaders/lit", "Forward", {"FOG", "GLOW"});
    REQUIRE_FALSE(v);
    CHECK(v.error().message ==
          "unknown keyword 'GLOW' for shader shaders/lit (legal keywords: ALPHA_TEST FOG NORMALMAP SKIN)");
    auto p = library.variant("shaders/unlit", "Shadow", {});
    REQUIRE_FALSE(p);
    CHECK(p.error().message == "shader shaders/unlit has no pass 'Shadow' (passes: Forward)");
    CHECK_FALSE(library.variant("shaders/nothing", "Main", {}));
    CHECK(library.stats().compiles == 0);
  }

  TEST_CASE("reflection records bindings - push constants - interface and specialization constants") {
    ShaderLibrary library({.root = fs::path(KILN_SOURCE_DIR) / "assets"});
    auto v = library.variant("shaders/lit", "Forward", {"NORMALMAP", "SKIN"});
    REQUIRE(v);
    // As stored: the encoded form is what packs, cache entries and `kiln shader reflect` carry.
    const auto vert = nlohmann::json::parse(runtime::encode_reflection((*v)->stages.at(0).reflection));
    const auto frag = nlohmann::json::parse(runtime::encode_reflection((*v)->stages.at(1).reflection));
    CHECK(vert["push_constants"][0]["size"] == 64);
    bool skin = false;
    for (const auto& b : vert["bindings"])
      if (b["name"] == "Skin") skin = b["kind"] == "storage_buffer" && b["set"] == 1 && b["binding"] == 0;
    CHECK(skin);
    CHECK(vert["inputs"].size() == 6);
    CHECK(frag["specialization_constants"][0]["name"] == "LIGHT_COUNT");
    CHECK(frag["outputs"][0]["type"] == "vec4");
    CHECK(frag["bindings"].size() == 4);
    auto comp = library.variant("shaders/post_bloom", "Main", {});
    REQUIRE(comp);
    CHECK((*comp)->stages.at(0).reflection.local_size == std::array<std::uint32_t, 3>{64, 1, 1});
  }
}

TEST_SUITE("shadercache") {
  TEST_CASE("each backend cross-compiles the variant - selected per library") {
    const fs::path assets = fs::path(KILN_SOURCE_DIR) / "assets";
    const std::pair<Backend, const char*> expected[] = {{Backend::kGlsl, "#version 450"},
                                                        {Backend::kEssl, "#version 310 es"},
                                                        {Backend::kHlsl, "float4"},
                                                        {Backend::kMsl, "#include <metal_stdlib>"}};
    for (const auto& [target, marker] : expected) {
      const Backend backend = target;  // lambdas (CHECK_MESSAGE) cannot name a binding in clang 14
      ShaderLibrary library({.root = assets, .backend = backend});
      auto v = library.variant("shaders/post_bloom", "Main", {"HDR"});
      REQUIRE_MESSAGE(v, v.error().message);
      CHECK_MESSAGE((*v)->stages[0].backend_source.find(marker) != std::string::npos, backend_name(backend));
      CHECK_FALSE((*v)->stages[0].spirv.empty());  // the SPIR-V is kept too
    }
  }
}

TEST_SUITE("shadercache/concurrent") {
  TEST_CASE("different variants compile in parallel threads to what one thread compiles") {
    const fs::path assets = fs::path(KILN_SOURCE_DIR) / "assets";
    const std::vector<std::vector<std::string>> keyword_sets = {
        {}, {"FOG"}, {"SKIN"}, {"NORMALMAP", "FOG"}, {"ALPHA_TEST"}, {"SKIN", "NORMALMAP"}};
    ShaderLibrary serial({.root = assets});
    std::vector<std::vector<std::uint32_t>> expected;
    for (const auto& k : keyword_sets)
      expected.push_back((*serial.variant("shaders/lit", "Forward", k))->stages[1].spirv);

    ShaderLibrary parallel({.root = assets});
    std::vector<std::thread> threads;
    std::atomic<int> mismatches{0};
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&, t] {
        for (std::size_t i = static_cast<std::size_t>(t); i < keyword_sets.size(); i += 3) {
          auto v = parallel.variant("shaders/lit", "Forward", keyword_sets[i]);
          if (!v || (*v)->stages[1].spirv != expected[i]) ++mismatches;
        }
      });
    }
    for (auto& t : threads) t.join();
    CHECK(mismatches == 0);
    CHECK(parallel.stats().compiles == keyword_sets.size());
  }
}

TEST_SUITE("shadercache") {
  TEST_CASE("a new file that an include would now find - or a commented-out-looking include - invalidates the shader") {
    test::TempDir dir("resolve");
    const fs::path root = dir / "proj";
    fs::create_directories(root / "shaders");
    fs::create_directories(root / "inc");
    write_text(root / "inc/extra.glsl", "const float EXTRA = 1.0;\n");
    write_text(root / "inc/other.glsl", "const float OTHER = 2.0;\n");
    write_text(root / "shaders/s.frag",
               "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"extra.glsl\"\n"
               "/* note */ #include \"other.glsl\"\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(EXTRA + "
               "OTHER); }\n");
    ShaderLibrary library({.root = root, .include_dirs = {"inc"}});
    REQUIRE(library.variant("shaders/s", "Main", {}));
    // A file next to the shader now wins over the include directory's.
    write_text(root / "shaders/extra.glsl", "const float EXTRA = 3.0;\n");
    CHECK(library.file_changed("shaders/extra.glsl") == std::vector<std::string>{"shaders/s"});
    CHECK(library.file_changed("inc/other.glsl") == std::vector<std::string>{"shaders/s"});
    // A new stage file belongs to the shader too.
    CHECK(library.file_changed(root / "shaders/s.vert") == std::vector<std::string>{"shaders/s"});
    CHECK(library.file_changed("shaders/unrelated.glsl").empty());
  }
}

TEST_SUITE("shadercache") {
  TEST_CASE("the cache namespace records the real SPIRV-Cross version - the installed package's") {
    const std::string version = shadercache::spirv_cross_version();
    CHECK(version.find("unknown") == std::string::npos);
    auto dpkg = test::run_process({"/usr/bin/dpkg-query", "-W", "-f=${Version}", "libspirv-cross-c-shared-dev"});
    REQUIRE(dpkg.exit_code == 0);
    CHECK(version == "SPIRV-Cross " + dpkg.output);
    bool recorded = false;
    for (const auto& [key, value] : shadercache::ShaderLibrary::build_identity())
      recorded = recorded || (key == "spirv-cross" && value == version);
    CHECK(recorded);
  }
}

TEST_SUITE("shadercache") {
  TEST_CASE("descriptor sets never collide in a backend without them - and the reflection says where each went") {
    test::TempDir dir("backends");
    fs::create_directories(dir / "shaders");
    // set=0,binding=0 and set=1,binding=0; two samplers at binding 1 of different sets; two stages.
    std::ofstream(dir / "shaders" / "two.vert") << "#version 450\n"
                                                   "layout(set = 0, binding = 0) uniform A { mat4 m; } ua;\n"
                                                   "layout(location = 0) in vec3 p;\n"
                                                   "void main() { gl_Position = ua.m * vec4(p, 1.0); }\n";
    std::ofstream(dir / "shaders" / "two.frag")
        << "#version 450\n"
           "layout(set = 1, binding = 0) uniform B { vec4 b; } ub;\n"
           "layout(set = 1, binding = 1) uniform sampler2D tex;\n"
           "layout(set = 2, binding = 1) uniform sampler2D tex2;\n"
           "layout(location = 0) out vec4 o;\n"
           "void main() { o = ub.b + texture(tex, vec2(0.5)) + texture(tex2, vec2(0.5)); }\n";
    auto slots = [](const CompiledStage& stage, const std::string& backend) {
      std::map<std::string, nlohmann::json> out;
      const auto reflection = nlohmann::json::parse(runtime::encode_reflection(stage.reflection));
      for (const auto& b : reflection["bindings"]) out[b["name"].get<std::string>()] = b[backend];
      return out;
    };
    SUBCASE("GLSL - checked by glslangValidator as OpenGL") {
      ShaderLibrary library({.root = dir.path(), .backend = Backend::kGlsl});
      auto v = library.variant("shaders/two", "Main", {});
      REQUIRE_MESSAGE(v, v.error().message);
      const auto vert = slots((*v)->stages[0], "glsl"), frag = slots((*v)->stages[1], "glsl");
      CHECK(vert.at("A")["binding"] == 0);
      CHECK(frag.at("B")["binding"] == 1);  // after A, although both are binding 0 in their sets
      CHECK(frag.at("tex")["binding"] == 0);
      CHECK(frag.at("tex2")["binding"] == 1);
      CHECK((*v)->stages[0].backend_source.find("layout(binding = 0, std140) uniform A") != std::string::npos);
      CHECK((*v)->stages[1].backend_source.find("layout(binding = 1, std140) uniform B") != std::string::npos);
      for (const auto& stage : (*v)->stages) {
        const fs::path file = dir / ("out." + stage.stage);
        std::ofstream(file) << stage.backend_source;
        auto checked = test::run_process({"/usr/bin/glslangValidator", "-S", stage.stage, file.string()});
        CHECK_MESSAGE(checked.exit_code == 0, checked.output);
      }
    }
    SUBCASE("HLSL - a set is a register space") {
      ShaderLibrary library({.root = dir.path(), .backend = Backend::kHlsl});
      auto v = library.variant("shaders/two", "Main", {});
      REQUIRE_MESSAGE(v, v.error().message);
      const std::string& frag = (*v)->stages[1].backend_source;
      CHECK((*v)->stages[0].backend_source.find("register(b0, space0)") != std::string::npos);
      CHECK(frag.find("cbuffer B : register(b0, space1)") != std::string::npos);
      CHECK(frag.find("register(t1, space1)") != std::string::npos);
      CHECK(frag.find("register(t1, space2)") != std::string::npos);
      CHECK(slots((*v)->stages[1], "hlsl").at("tex2") == nlohmann::json{{"register", 1}, {"space", 2}});
    }
    SUBCASE("MSL - buffer, texture and sampler indices") {
      ShaderLibrary library({.root = dir.path(), .backend = Backend::kMsl});
      auto v = library.variant("shaders/two", "Main", {});
      REQUIRE_MESSAGE(v, v.error().message);
      const std::string& frag = (*v)->stages[1].backend_source;
      CHECK((*v)->stages[0].backend_source.find("ua [[buffer(0)]]") != std::string::npos);
      CHECK(frag.find("ub [[buffer(1)]]") != std::string::npos);
      CHECK(frag.find("tex [[texture(0)]]") != std::string::npos);
      CHECK(frag.find("tex2 [[texture(1)]]") != std::string::npos);
      CHECK(slots((*v)->stages[1], "msl").at("tex2") == nlohmann::json{{"texture", 1}, {"sampler", 1}});
    }
  }
}
