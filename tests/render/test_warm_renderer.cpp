// The renderer an editor keeps warm: pipelines made only for what changed, scenes drawn from
// records in memory exactly as from a cooked set.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "child_process.h"
#include "kiln/render/pipeline_set.h"
#include "kiln/render/scene_renderer.h"
#include "kiln/render/scene_source.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/textures/texture_settings.h"
#include "kiln/runtime/cooked_set.h"
#include "lavapipe.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

struct CookedSample {
  test::TempDir dir{"warm-render"};
  std::unique_ptr<runtime::CookedSet> set;
  CookedSample() {
    auto cooked = test::run_process({KILN_CLI, "cook", (fs::path(KILN_SOURCE_DIR) / "assets").string(), "--out",
                                     (dir / "out").string(), "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
    auto opened = runtime::CookedSet::open(dir / "out");
    REQUIRE_MESSAGE(opened, opened.error().message);
    set = std::move(*opened);
  }
  // Every material of the set, with its variants and textures, copied into memory.
  void copy_into(render::MemorySceneSource& source) const {
    for (const auto& file : set->ids(runtime::EntryKind::kMaterial)) {
      auto material = set->material(file);
      REQUIRE(material);
      for (const auto& pass : material->passes) {
        auto variant = set->variant(pass.variant);
        REQUIRE(variant);
        source.put_variant(pass.variant, *variant);
        for (const auto& t : pass.textures) {
          auto tx = set->texture(t.texture);
          REQUIRE(tx);
          source.put_texture(t.texture, {tx->begin(), tx->end()});
        }
      }
      source.put_material(*material);
    }
  }
};

// One cook of the sample per process, for the cases here that run in it: they only read it.
const CookedSample& cooked_sample() {
  static const CookedSample sample;
  return sample;
}

// Every material of `sample` in memory, its pipelines made and shown by a warm renderer.
struct WarmScene {
  render::MemorySceneSource memory{"memory"};
  std::unique_ptr<render::PipelineSet> pipelines;
  std::unique_ptr<render::SceneRenderer> renderer;
  WarmScene(const CookedSample& sample, const render::VulkanContext& context) {
    sample.copy_into(memory);
    pipelines = render::PipelineSet::create(context, VK_NULL_HANDLE);
    REQUIRE(pipelines->update(memory));
    auto made = render::SceneRenderer::create(context);
    REQUIRE(made);
    renderer = std::move(*made);
    REQUIRE(renderer->show(memory, *pipelines));
  }
};

std::unique_ptr<render::VulkanContext> lavapipe() {
  test::use_lavapipe_here();
  auto context = render::VulkanContext::create({.device = "llvmpipe", .validate = true});
  REQUIRE_MESSAGE(context, context.error().message);
  return std::move(*context);
}

}  // namespace

TEST_SUITE("render") {
  TEST_CASE("a warm pipeline set makes only what changed - and lets go of what no material uses") {
    const CookedSample& sample = cooked_sample();
    render::MemorySceneSource source("memory");
    sample.copy_into(source);
    auto context = lavapipe();
    auto pipelines = render::PipelineSet::create(*context, VK_NULL_HANDLE);
    REQUIRE(pipelines->update(source));
    std::set<std::pair<std::string, std::string>> pairs;
    for (const auto& p : pipelines->pipelines()) pairs.emplace(p.variant, p.pass);
    const auto made = pipelines->stats().graphics + pipelines->stats().compute;
    CHECK(made == pairs.size());
    CHECK(pipelines->stats().reused == 0);

    // Nothing changed: nothing is made.
    REQUIRE(pipelines->update(source));
    CHECK(pipelines->stats().graphics + pipelines->stats().compute == 0);
    CHECK(pipelines->stats().reused == made);

    // brick's Forward variant edited (same name, other SPIR-V): that pipeline alone is made again.
    auto brick = sample.set->material("materials/brick.json");
    auto foggy = sample.set->material("materials/brick_foggy.json");
    REQUIRE(brick);
    REQUIRE(foggy);
    const std::string edited = brick->pass("Forward")->variant;
    auto other = sample.set->variant(foggy->pass("Forward")->variant);
    REQUIRE(other);
    source.put_variant(edited, *other);
    std::size_t using_edited = 0;
    for (const auto& [variant, pass] : pairs) using_edited += variant == edited;
    REQUIRE(pipelines->update(source));
    CHECK(pipelines->stats().graphics == using_edited);
    CHECK(pipelines->stats().reused == made - using_edited);

    // A material removed: its pipelines go with it, the others stay.
    source.erase_material("materials/metal.json");
    REQUIRE(pipelines->update(source));
    CHECK(pipelines->find("materials/metal.json", "Forward") == nullptr);
    CHECK(pipelines->find("materials/brick.json", "Forward") != nullptr);
    CHECK(pipelines->stats().graphics + pipelines->stats().compute == 0);
    CHECK(render::check_validation(*context));

    // A source that cannot be drawn leaves the set as it was.
    render::MemorySceneSource broken("memory");
    broken.put_material(*brick);  // its variants are missing
    const auto before = pipelines->pipelines().size();
    auto refused = pipelines->update(broken);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("memory: no variant") != std::string::npos);
    CHECK(pipelines->pipelines().size() == before);
    CHECK(pipelines->find("materials/brick.json", "Forward") != nullptr);
  }

  TEST_CASE("records in memory draw the cooked set's pictures - a warm renderer draws only the views asked for") {
    const CookedSample& sample = cooked_sample();
    auto context = lavapipe();
    const render::CookedSetSource cooked(*sample.set);
    auto cooked_pipelines = render::PipelineSet::build(*context, cooked, VK_NULL_HANDLE);
    REQUIRE(cooked_pipelines);
    auto reference = render::SceneRenderer::create(*context, cooked, **cooked_pipelines);
    REQUIRE(reference);
    REQUIRE((*reference)->render_frame(0));

    WarmScene scene(sample, *context);
    auto& memory = scene.memory;
    auto& pipelines = scene.pipelines;
    auto* warm = &scene.renderer;
    REQUIRE((*warm)->drawn() == (*reference)->drawn());
    const std::vector<std::string> asked = {"materials/brick.json"};
    REQUIRE((*warm)->render_views(asked, 0));
    for (std::size_t i = 0; i < (*warm)->drawn().size(); ++i) {
      const bool drawn = (*warm)->drawn()[i] == asked.front();
      CHECK_MESSAGE(((*warm)->view(i).width > 0) == drawn, (*warm)->drawn()[i]);
      if (drawn) CHECK((*warm)->view(i).rgba == (*reference)->view(i).rgba);
    }

    // Shown again after a change (the edited material's texture forgotten): still the same pixels,
    // and every view when asked for all.
    (*warm)->forget_texture("textures/brick.png");
    REQUIRE(pipelines->update(memory));
    REQUIRE((*warm)->show(memory, *pipelines));
    REQUIRE((*warm)->render_views((*warm)->drawn(), 0));
    for (std::size_t i = 0; i < (*warm)->drawn().size(); ++i)
      CHECK_MESSAGE((*warm)->view(i).rgba == (*reference)->view(i).rgba, (*warm)->drawn()[i]);
    CHECK(render::check_validation(*context));
  }
}

TEST_SUITE("render") {
  TEST_CASE("to_srgb8 encodes every linear value as the sRGB curve rounds it") {
    render::LinearImage image{1, 1, {0, 0, 0, 1}};
    std::size_t differing = 0, checked = 0;
    for (int i = -1000; i <= 1'001'000; i += 7) {
      const float v = float(i) / 1'000'000.0f;
      image.rgba = {v, v, v, 1};
      const auto expected = int(std::lround(textures::linear_to_srgb(std::clamp(v, 0.0f, 1.0f)) * 255.0f));
      const auto got = render::to_srgb8(image).pixels;
      differing += got[0] != expected;
      CHECK(got[0] == got[1]);
      CHECK(got[3] == 255);
      ++checked;
    }
    CHECK_MESSAGE(differing == 0, differing << " of " << checked << " values encoded differently");
    // Not a number (a shader's division by zero) is black, as rounding it would give.
    image.rgba = {std::nanf(""), 0.5f, -std::nanf(""), 1};
    const auto nan = render::to_srgb8(image).pixels;
    CHECK(nan[0] == 0);
    CHECK(nan[2] == 0);
  }
}

TEST_SUITE("render") {
  TEST_CASE("pipelines linked fast from parts draw what whole ones draw - and again once linked optimised") {
    const CookedSample& sample = cooked_sample();
    auto context = lavapipe();
    REQUIRE_MESSAGE(context->graphics_pipeline_library(), "lavapipe offers VK_EXT_graphics_pipeline_library");
    const render::CookedSetSource cooked(*sample.set);
    auto whole = render::PipelineSet::build(*context, cooked, VK_NULL_HANDLE);
    REQUIRE(whole);
    CHECK((*whole)->stats().linked_fast == 0);
    auto reference = render::SceneRenderer::create(*context, cooked, **whole);
    REQUIRE(reference);
    REQUIRE((*reference)->render_frame(0));

    auto fast = render::PipelineSet::create(*context, VK_NULL_HANDLE, {.fast_link = true});
    REQUIRE(fast->update(cooked));
    CHECK(fast->stats().graphics > 0);
    CHECK(fast->stats().linked_fast == fast->stats().graphics);
    CHECK(fast->waiting_optimisation() == fast->stats().graphics);
    auto scene = render::SceneRenderer::create(*context, cooked, *fast);
    REQUIRE(scene);
    auto same_views = [&] {
      REQUIRE((*scene)->render_views((*scene)->drawn(), 0));
      for (std::size_t i = 0; i < (*scene)->drawn().size(); ++i)
        CHECK_MESSAGE((*scene)->view(i).rgba == (*reference)->view(i).rgba, (*scene)->drawn()[i]);
    };
    same_views();
    auto left = fast->optimise(1);
    REQUIRE(left);
    CHECK(*left == fast->stats().graphics - 1);
    left = fast->optimise(1000);
    REQUIRE(left);
    CHECK(*left == 0);
    CHECK(fast->waiting_optimisation() == 0);
    same_views();  // the scene reads the optimised handles in place of the fast ones
    CHECK(render::check_validation(*context));
  }
}

TEST_SUITE("render") {
  TEST_CASE("a show that fails shows nothing - the renderer draws again after the next one") {
    const CookedSample& sample = cooked_sample();
    auto context = lavapipe();
    WarmScene scene(sample, *context);
    auto& memory = scene.memory;
    auto& pipelines = scene.pipelines;
    auto* warm = &scene.renderer;
    REQUIRE_FALSE((*warm)->drawn().empty());

    // brick's albedo gone from the source and from the renderer: brick cannot be shown.
    auto tx = sample.set->texture("textures/brick.png");
    REQUIRE(tx);
    memory.erase_texture("textures/brick.png");
    (*warm)->forget_texture("textures/brick.png");
    auto refused = (*warm)->show(memory, *pipelines);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("memory: no texture textures/brick.png") != std::string::npos);
    CHECK((*warm)->drawn().empty());
    CHECK((*warm)->render_views(std::vector<std::string>{"materials/metal.json"}, 0));

    memory.put_texture("textures/brick.png", {tx->begin(), tx->end()});
    REQUIRE((*warm)->show(memory, *pipelines));
    REQUIRE((*warm)->render_views((*warm)->drawn(), 0));
    for (std::size_t i = 0; i < (*warm)->drawn().size(); ++i) CHECK((*warm)->view(i).width > 0);
    CHECK(render::check_validation(*context));
  }
}
