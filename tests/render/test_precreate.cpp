// A deferred PipelineSet, in process on lavapipe: nothing made by update(), the requested pipelines
// made ahead on a worker pool (a request no material has counted, a changed state counted), the
// rest made when asked, every material pass ending with a pipeline, kept over an update.

#include <doctest/doctest.h>

#include <filesystem>
#include <set>

#include "child_process.h"
#include "kiln/core/worker_pool.h"
#include "kiln/render/pipeline_cache.h"
#include "kiln/render/pipeline_set.h"
#include "kiln/render/scene_source.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/runtime/cooked_set.h"
#include "lavapipe.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

TEST_SUITE("render") {
  TEST_CASE("a deferred pipeline set makes requested pipelines ahead on a pool - the rest when asked") {
    test::TempDir dir("precreate");
    auto cooked = test::run_process({KILN_CLI, "cook", (fs::path(KILN_SOURCE_DIR) / "assets").string(), "--out",
                                     (dir / "out").string(), "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
    auto set = runtime::CookedSet::open(dir / "out");
    REQUIRE(set);
    test::use_lavapipe_here();
    auto context = render::VulkanContext::create({.device = "llvmpipe", .validate = true});
    REQUIRE_MESSAGE(context, context.error().message);
    auto cache = render::PersistentPipelineCache::open(**context, nullptr);
    REQUIRE(cache);
    const render::CookedSetSource source(**set);
    auto pipelines = render::PipelineSet::create(**context, (*cache)->handle(), {.deferred = true});
    REQUIRE(pipelines->update(source));
    const auto& all = pipelines->pipelines();
    REQUIRE(all.size() >= 8);
    for (const auto& p : all) CHECK(p.pipeline == VK_NULL_HANDLE);

    // Ask for the first two material passes, one twice, one with another state, one nobody uses.
    const auto& a = all[0];
    const auto& b = all[1];
    std::vector<render::PipelineRequest> wanted = {
        {a.variant, a.pass, "", ""},
        {b.variant, b.pass, "0:vec4", "forward rgba16f d32"},  // recorded with a layout it no longer has
        {a.variant, a.pass, "", ""},
        {"shaders/none|Forward|", "Forward", "", ""}};
    core::WorkerPool pool(2);
    auto made = pipelines->precreate(wanted, &pool);
    REQUIRE_MESSAGE(made, made.error().message);
    CHECK(made->made == 2);
    CHECK(made->not_used == 1);
    CHECK(made->changed == 1);
    CHECK(all[0].pipeline != VK_NULL_HANDLE);
    CHECK(all[1].pipeline != VK_NULL_HANDLE);
    // Materials sharing a variant and pass share the pipeline made for it.
    for (const auto& p : all)
      if ((p.variant == a.variant && p.pass == a.pass) || (p.variant == b.variant && p.pass == b.pass))
        CHECK(p.pipeline != VK_NULL_HANDLE);
    // Asking again makes nothing.
    auto again = pipelines->precreate(wanted, &pool);
    REQUIRE(again);
    CHECK(again->made == 0);

    std::set<std::pair<std::string, std::string>> distinct;
    for (const auto& p : all) distinct.emplace(p.variant, p.pass);
    auto rest = pipelines->make_missing();
    REQUIRE_MESSAGE(rest, rest.error().message);
    CHECK(*rest == distinct.size() - 2);
    for (const auto& p : all) CHECK(p.pipeline != VK_NULL_HANDLE);
    CHECK(pipelines->stats().graphics + pipelines->stats().compute == distinct.size());
    CHECK(*pipelines->make_missing() == 0);
    CHECK((*context)->validation_messages().empty());

    // An update keeps what was made for what is still used.
    REQUIRE(pipelines->update(source));
    for (const auto& p : pipelines->pipelines()) CHECK(p.pipeline != VK_NULL_HANDLE);
  }
}
