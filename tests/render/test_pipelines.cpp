#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/cache/blob_store.h"
#include "kiln/render/pipeline_cache.h"
#include "kiln/runtime/shader_interface.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/runtime/cooked_set.h"
#include "lavapipe.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

struct Cooked {
  test::TempDir dir{"render"};
  fs::path out = dir / "out";
  Cooked() {
    auto cooked = test::run_process({KILN_CLI, "cook", (fs::path(KILN_SOURCE_DIR) / "assets").string(), "--out",
                                     out.string(), "--cache-root", (dir / "cook-cache").string()});
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
  }
  // kiln-player on the cooked set with the validation layer, on lavapipe: its JSON report.
  nlohmann::json play(const std::map<std::string, std::string>& env = test::lavapipe_env(),
                      std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {KILN_PLAYER,  out.string(),   "--json",
                                     "--validate", "--cache-root", (dir / "player-cache").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto played = test::run_process(argv, env);
    REQUIRE_MESSAGE(played.exit_code == 0, played.output);
    return nlohmann::json::parse(played.output.substr(played.output.find('{')));
  }
};

// What the cooked materials need: distinct (variant, pass) pairs, graphics and compute.
std::pair<int, int> expected_pipelines(const fs::path& out) {
  auto set = runtime::CookedSet::open(out);
  REQUIRE_MESSAGE(set, set.error().message);
  std::set<std::pair<std::string, std::string>> graphics, compute;
  for (const auto& file : (*set)->ids(runtime::EntryKind::kMaterial)) {
    auto material = (*set)->material(file);
    REQUIRE(material);
    for (const auto& pass : material->passes) {
      auto variant = (*set)->variant(pass.variant);
      REQUIRE(variant);
      (variant->stage("comp") ? compute : graphics).emplace(pass.variant, pass.pass);
    }
  }
  return {int(graphics.size()), int(compute.size())};
}

render::DeviceIdentity lavapipe_identity() {
  test::use_lavapipe_here();
  auto context = render::VulkanContext::create({.device = "llvmpipe"});
  REQUIRE_MESSAGE(context, context.error().message);
  return (*context)->identity();
}

}  // namespace

TEST_SUITE("render") {
  TEST_CASE("the player creates every material pipeline from the cooked set - validation clean - then a cache hit") {
    Cooked c;
    const auto [graphics, compute] = expected_pipelines(c.out);
    CHECK(graphics >= 8);
    CHECK(compute == 1);  // the post-process pass
    const auto first = c.play();
    REQUIRE(first["gpu"]["available"] == true);
    CHECK(first["gpu"]["device"].get<std::string>().find("llvmpipe") != std::string::npos);
    CHECK(first["gpu"]["pipelines"]["graphics"] == graphics);
    CHECK(first["gpu"]["pipelines"]["compute"] == compute);
    CHECK(first["gpu"]["validation"]["on"] == true);
    CHECK(first["gpu"]["validation"]["messages"].empty());
    CHECK(first["gpu"]["pipeline_cache"]["outcome"] == "miss");
    CHECK(first["gpu"]["pipeline_cache"]["saved_bytes"].get<int>() >= 32);  // at least Vulkan's header
    const auto second = c.play();
    CHECK(second["gpu"]["pipeline_cache"]["outcome"] == "hit");
    CHECK(second["gpu"]["pipeline_cache"]["loaded_bytes"] == first["gpu"]["pipeline_cache"]["saved_bytes"]);
    CHECK(second["gpu"]["pipelines"]["graphics"] == graphics);
    // The driver's own report is kept apart from Kiln's hit: lavapipe reports feedback and never a
    // hit of its own cache.
    CHECK(second["gpu"]["driver_feedback"]["reported"] == true);
    CHECK(second["gpu"]["driver_feedback"]["cache_hits"] == 0);
    // The kill switch: nothing is looked up or saved.
    auto env = test::lavapipe_env();
    env["KILN_RENDER_PIPELINE_CACHE"] = "off";
    CHECK(c.play(env)["gpu"]["pipeline_cache"]["outcome"] == "off");
  }

  TEST_CASE("a pipeline cache blob of another driver or with flipped bytes is ignored and replaced") {
    Cooked c;
    c.play();  // stores this driver's blob
    const render::DeviceIdentity device = lavapipe_identity();
    auto store = cache::BlobStore::open({.root = c.dir / "player-cache", .background_writes = false});
    REQUIRE_MESSAGE(store, store.error().message);
    auto entry = render::pipeline_cache_entry(**store, device);
    REQUIRE(entry);
    auto stored = (*store)->get(entry->first, entry->second);
    REQUIRE(stored);
    CHECK_FALSE(render::check_pipeline_cache_data(*stored, device));

    // Data another device made, under this device's key (a copied cache directory, a driver that
    // kept its UUID): rejected by its header, never handed to the driver, then replaced.
    cache::Bytes foreign = *stored;
    const std::uint32_t other_vendor = device.vendor_id ^ 0x1002;
    std::memcpy(foreign.data() + 8, &other_vendor, 4);
    (*store)->put(entry->first, entry->second, foreign);
    auto report = c.play();
    CHECK(report["gpu"]["pipeline_cache"]["outcome"] == "rejected");
    CHECK(report["gpu"]["pipeline_cache"]["why"].get<std::string>().find("another device") != std::string::npos);
    CHECK(report["gpu"]["validation"]["on"] == true);
    CHECK(report["gpu"]["validation"]["messages"].empty());
    CHECK(c.play()["gpu"]["pipeline_cache"]["outcome"] == "hit");

    // Flipped bytes in the stored file: the store's checksum fails, the entry is deleted, the run
    // starts empty and writes a good one.
    const fs::path file = (*store)->blob_path(entry->first, entry->second);
    std::string bytes = test::slurp(file);
    bytes[bytes.size() - 3] ^= 0x5a;
    test::spit(file, bytes);
    report = c.play();
    CHECK(report["gpu"]["pipeline_cache"]["outcome"] == "rejected");
    CHECK(report["gpu"]["pipeline_cache"]["why"].get<std::string>().find("checksum") != std::string::npos);
    CHECK(c.play()["gpu"]["pipeline_cache"]["outcome"] == "hit");
  }

  TEST_CASE("pipeline cache data is checked against the device before the driver sees it") {
    render::DeviceIdentity device;
    device.vendor_id = 0x10005;
    device.device_id = 7;
    for (std::size_t i = 0; i < device.pipeline_cache_uuid.size(); ++i) device.pipeline_cache_uuid[i] = std::uint8_t(i);
    auto header = [&](std::uint32_t length, std::uint32_t version, std::uint32_t vendor, std::uint32_t id) {
      cache::Bytes data(40);
      const std::uint32_t words[] = {length, version, vendor, id};
      std::memcpy(data.data(), words, 16);
      std::memcpy(data.data() + 16, device.pipeline_cache_uuid.data(), 16);
      return data;
    };
    CHECK_FALSE(render::check_pipeline_cache_data(header(32, 1, 0x10005, 7), device));
    CHECK(render::check_pipeline_cache_data(cache::Bytes(31), device)->find("shorter") != std::string::npos);
    CHECK(render::check_pipeline_cache_data(header(64, 1, 0x10005, 7), device)->find("length") != std::string::npos);
    CHECK(render::check_pipeline_cache_data(header(32, 2, 0x10005, 7), device)->find("version") != std::string::npos);
    CHECK(render::check_pipeline_cache_data(header(32, 1, 0x8086, 7), device)->find("another device") !=
          std::string::npos);
    CHECK(render::check_pipeline_cache_data(header(32, 1, 0x10005, 8), device)->find("another device") !=
          std::string::npos);
    auto other_uuid = header(32, 1, 0x10005, 7);
    other_uuid[20] ^= std::byte{1};
    CHECK(render::check_pipeline_cache_data(other_uuid, device)->find("pipelineCacheUUID") != std::string::npos);
  }

  TEST_CASE("the shader interface comes from the stored reflection - bindings merged over stages") {
    Cooked c;
    auto set = runtime::CookedSet::open(c.out);
    REQUIRE(set);
    auto brick = (*set)->material("materials/brick.json");
    REQUIRE(brick);
    auto variant = (*set)->variant(brick->pass("Forward")->variant);
    REQUIRE(variant);
    auto interface = runtime::shader_interface(*variant, "brick");
    REQUIRE_MESSAGE(interface, interface.error().message);
    CHECK(interface->kind == runtime::PipelineKind::kGraphics);
    CHECK(interface->set_count == 2);
    const auto* camera = interface->binding(0, 0);
    REQUIRE(camera);
    CHECK(camera->kind == runtime::DescriptorKind::kUniformBuffer);
    CHECK(camera->stages ==
          (runtime::stage_bit(runtime::ShaderStage::kVertex) | runtime::stage_bit(runtime::ShaderStage::kFragment)));
    REQUIRE(interface->binding(1, 2));
    CHECK(interface->binding(1, 2)->kind == runtime::DescriptorKind::kCombinedImageSampler);
    CHECK(interface->binding(1, 2)->name == "albedo_map");
    CHECK(interface->push_constant_size == 64);  // mat4 model
    CHECK(interface->push_constant_stages == runtime::stage_bit(runtime::ShaderStage::kVertex));
    REQUIRE(interface->vertex_inputs.size() == 4);  // NORMALMAP adds the tangent
    CHECK(interface->vertex_inputs[3].type == "vec4");
    CHECK(interface->fragment_outputs == 1);

    auto bloom = (*set)->material("materials/bloom.json");
    REQUIRE(bloom);
    auto post = runtime::shader_interface(*(*set)->variant(bloom->passes.at(0).variant), "bloom");
    REQUIRE(post);
    CHECK(post->kind == runtime::PipelineKind::kCompute);
    CHECK(post->local_size == std::array<std::uint32_t, 3>{64, 1, 1});
    CHECK(post->binding(0, 1)->kind == runtime::DescriptorKind::kStorageImage);

    // Two stages that disagree about a binding: an error naming the variant and the binding.
    runtime::VariantRecord broken = *variant;
    auto& frag = broken.stages.at(1);
    REQUIRE(!frag.reflection.bindings.empty());
    REQUIRE(frag.reflection.bindings[0].kind == runtime::DescriptorKind::kUniformBuffer);
    frag.reflection.bindings[0].kind = runtime::DescriptorKind::kStorageBuffer;
    auto refused = runtime::shader_interface(broken, "shaders.pack: lit|Forward|NORMALMAP");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find(
              "shaders.pack: lit|Forward|NORMALMAP: frag: set 0 binding 0 is uniform_buffer") != std::string::npos);
    // A kind no renderer binds here, and a set past the limit: refused by name.
    frag = variant->stages.at(1);
    frag.reflection.bindings[0].kind = runtime::DescriptorKind::kAccelerationStructure;
    refused = runtime::shader_interface(broken, "x");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("acceleration_structure are not supported") != std::string::npos);
    frag = variant->stages.at(1);
    frag.reflection.bindings.back().set = 8;
    refused = runtime::shader_interface(broken, "x");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("set 8 binding") != std::string::npos);
    CHECK(refused.error().message.find("is out of range") != std::string::npos);
  }

  TEST_CASE("without a Vulkan device the player says so in one line and runs its checks - --require-gpu fails") {
    Cooked c;
    const std::map<std::string, std::string> none = {{"VK_ICD_FILENAMES", (c.dir / "no-driver.json").string()},
                                                     {"VK_DRIVER_FILES", (c.dir / "no-driver.json").string()}};
    auto played = test::run_process(
        {KILN_PLAYER, c.out.string(), "--quiet", "--cache-root", (c.dir / "player-cache").string()}, none);
    CHECK_MESSAGE(played.exit_code == 0, played.output);
    CHECK(played.output.find("player: no GPU rendering (") != std::string::npos);
    CHECK(played.output.find("player: 6 textures checked") != std::string::npos);
    played = test::run_process(
        {KILN_PLAYER, c.out.string(), "--quiet", "--require-gpu", "--cache-root", (c.dir / "player-cache").string()},
        none);
    CHECK(played.exit_code == 1);
    CHECK(played.output.find("kiln-player: no usable Vulkan device (--require-gpu)") != std::string::npos);
    // A device name that matches none: the same, naming what there is.
    auto env = test::lavapipe_env();
    env["KILN_RENDER_DEVICE"] = "radeon 9999";
    played = test::run_process(
        {KILN_PLAYER, c.out.string(), "--quiet", "--cache-root", (c.dir / "player-cache").string()}, env);
    CHECK(played.exit_code == 0);
    CHECK(played.output.find("named like \"radeon 9999\" (there is llvmpipe") != std::string::npos);
  }
}
