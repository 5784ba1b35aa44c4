// Usage records: what runs of the game used, as the cook will read them. Encoded, decoded, merged
// and refused at the JSON pointer of what is wrong; `kiln usage show` and `merge` through the real
// process.
#include <doctest/doctest.h>

#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/usage/usage_record.h"
#include "kiln/usage/usage_recorder.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
using usage::PipelineUse;
using usage::UsageRecord;
namespace fs = std::filesystem;

namespace {

UsageRecord run_a() {
  UsageRecord r;
  r.variants = {"spirv-vulkan1.0:shaders/lit|Forward|FOG", "spirv-vulkan1.0:shaders/sky|Forward|"};
  r.add_pipeline({"spirv-vulkan1.0:shaders/sky|Forward|", "Forward", "p3n3t2", "rgba16f+d32", "spirv-vulkan1.0"});
  r.add_pipeline({"spirv-vulkan1.0:shaders/lit|Forward|FOG", "Forward", "p3n3t2", "rgba16f+d32", "spirv-vulkan1.0"});
  r.pages = {"1234abcd-checked"};
  r.textures["textures/brick.png"] = {0, 1};
  return r;
}

UsageRecord run_b() {
  UsageRecord r;
  r.variants = {"spirv-vulkan1.0:shaders/lit|Shadow|"};
  r.add_pipeline({"spirv-vulkan1.0:shaders/lit|Shadow|", "Shadow", "p3", "d16", "spirv-vulkan1.0"});
  r.add_pipeline({"spirv-vulkan1.0:shaders/sky|Forward|", "Forward", "p3n3t2", "rgba16f+d32", "spirv-vulkan1.0"});
  r.textures["textures/brick.png"] = {2};
  r.textures["textures/sky.png"] = {0};
  return r;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("usage") {
  TEST_CASE("a usage record round-trips byte for byte - a merge is a union that keeps the first pipeline order") {
    const UsageRecord a = run_a();
    const std::string text = usage::encode_usage(a);
    auto decoded = usage::decode_usage(text, "a.json");
    REQUIRE_MESSAGE(decoded, decoded.error().message);
    CHECK(*decoded == a);
    CHECK(usage::encode_usage(*decoded) == text);

    UsageRecord merged = a;
    merged.merge(run_b());
    CHECK(merged.variants.size() == 3);
    REQUIRE(merged.pipelines.size() == 3);  // the sky pipeline once, where it was first
    CHECK(merged.pipelines[0].variant == "spirv-vulkan1.0:shaders/sky|Forward|");
    CHECK(merged.pipelines[1].variant == "spirv-vulkan1.0:shaders/lit|Forward|FOG");
    CHECK(merged.pipelines[2].pass == "Shadow");
    CHECK(merged.textures.at("textures/brick.png") == std::set<std::uint32_t>{0, 1, 2});
    CHECK(merged.textures.at("textures/sky.png") == std::set<std::uint32_t>{0});
    // Merging again changes nothing; the empty record is the identity.
    UsageRecord again = merged;
    again.merge(run_b());
    again.merge(UsageRecord{});
    CHECK(again == merged);
    CHECK(UsageRecord{}.empty());
  }

  TEST_CASE("a malformed usage record is refused at the JSON pointer of what is wrong") {
    const std::string good = usage::encode_usage(run_a());
    auto edit = [&](const std::function<void(nlohmann::json&)>& change) {
      auto doc = nlohmann::json::parse(good);
      change(doc);
      return doc.dump();
    };
    const std::pair<std::string, std::string> cases[] = {
        {"[]", "r.json: : expected a JSON object"},
        {edit([](auto& d) { d["format"] = "kiln-cooked-set"; }), "/format: expected \"kiln-usage\""},
        {edit([](auto& d) { d["version"] = 2; }), "/version: version 2"},
        {edit([](auto& d) { d["extra"] = 1; }), "/extra: unknown field"},
        {edit([](auto& d) { d["variants"].push_back(""); }), "/variants/2: expected a non-empty string"},
        {edit([](auto& d) { d["variants"].push_back(d["variants"][0]); }), "/variants/2: listed twice"},
        {edit([](auto& d) { d["pages"] = "x"; }), "/pages: expected an array of strings"},
        {edit([](auto& d) { d["pipelines"][1].erase("render_pass"); }), "/pipelines/1/render_pass: expected a string"},
        {edit([](auto& d) { d["pipelines"][0]["extra"] = "x"; }), "/pipelines/0: unknown field"},
        {edit([](auto& d) { d["pipelines"].push_back(d["pipelines"][0]); }), "/pipelines/2: listed twice"},
        {edit([](auto& d) { d["textures"]["textures/brick.png"].push_back(32); }),
         "/textures/textures~1brick.png/2: expected a mip level from 0 to 31"},
        {edit([](auto& d) { d["textures"]["textures/brick.png"].push_back(1); }),
         "/textures/textures~1brick.png/2: listed twice"},
        {edit([](auto& d) { d["textures"] = nlohmann::json::array(); }), "/textures: expected an object"},
    };
    for (const auto& item : cases) {
      const std::string text = item.first, expected = item.second;
      CAPTURE(expected);
      auto decoded = usage::decode_usage(text, "r.json");
      REQUIRE_FALSE(decoded);
      CHECK_MESSAGE(has(decoded.error().message, expected), decoded.error().message);
    }
  }

  TEST_CASE("kiln usage merge unions records into one file - kiln usage show summarises it") {
    test::TempDir dir("usage");
    REQUIRE(usage::write_usage(dir / "a.json", run_a()));
    REQUIRE(usage::write_usage(dir / "b.json", run_b()));
    const auto merged = test::run_process({KILN_CLI, "usage", "merge", (dir / "a.json").string(),
                                           (dir / "b.json").string(), "-o", (dir / "all.json").string()});
    REQUIRE_MESSAGE(merged.exit_code == 0, merged.output);
    CHECK(has(merged.output, "2 records merged"));
    auto read = usage::read_usage(dir / "all.json");
    REQUIRE(read);
    UsageRecord expected = run_a();
    expected.merge(run_b());
    CHECK(*read == expected);

    const auto shown = test::run_process({KILN_CLI, "usage", "show", (dir / "all.json").string(), "--json"});
    REQUIRE_MESSAGE(shown.exit_code == 0, shown.output);
    const auto summary = nlohmann::json::parse(shown.output);
    CHECK(summary["variants"] == 3);
    CHECK(summary["pipelines"] == 3);
    CHECK(summary["pages"] == 1);
    CHECK(summary["textures"] == 2);
    CHECK(summary["texture_levels"] == 4);
    const auto text = test::run_process({KILN_CLI, "usage", "show", (dir / "all.json").string()});
    CHECK(has(text.output, "3 variants, 3 pipelines, 1 hot page, 2 textures (4 levels)"));

    // A broken input names the file and the place; nothing is written.
    test::spit(dir / "bad.json", R"({"format": "kiln-usage", "version": 1, "variants": [7]})");
    const auto bad = test::run_process({KILN_CLI, "usage", "merge", (dir / "a.json").string(),
                                        (dir / "bad.json").string(), "-o", (dir / "out.json").string()});
    CHECK(bad.exit_code == 1);
    CHECK(has(bad.output, "bad.json: /variants/0: expected a non-empty string"));
    CHECK_FALSE(fs::exists(dir / "out.json"));
    const auto no_out = test::run_process({KILN_CLI, "usage", "merge", (dir / "a.json").string()});
    CHECK(no_out.exit_code == 2);
    const auto no_records = test::run_process({KILN_CLI, "usage", "merge", "-o", (dir / "x.json").string()});
    CHECK(no_records.exit_code == 2);
  }
}

TEST_SUITE("usage") {
  TEST_CASE("a recorder fed from many threads records each thing once - pipelines in the order first made") {
    usage::UsageRecorder recorder;
    const UsageRecord a = run_a();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int round = 0; round < 50; ++round) {
          for (const auto& v : a.variants) recorder.variant(v);
          recorder.page("page-" + std::to_string(round % 5));
          recorder.texture_level("textures/brick.png", std::uint32_t(t));
        }
      });
    for (auto& t : threads) t.join();
    for (const PipelineUse& p : a.pipelines) recorder.pipeline(p);
    for (const PipelineUse& p : a.pipelines) recorder.pipeline(p);  // again: still once each
    const UsageRecord got = recorder.record();
    CHECK(got.variants == a.variants);
    CHECK(got.pipelines == a.pipelines);
    CHECK(got.pages.size() == 5);
    CHECK(got.textures.at("textures/brick.png") == std::set<std::uint32_t>{0, 1, 2, 3});
  }

  TEST_CASE("merging large records stays a union in first order - each pipeline once") {
    UsageRecord big, other;
    for (int i = 0; i < 20000; ++i)
      big.pipelines.push_back({"v" + std::to_string(i), "Forward", "0:vec3", "forward rgba16f d32", "t"});
    for (int i = 19990; i < 20010; ++i)
      other.pipelines.push_back({"v" + std::to_string(i), "Forward", "0:vec3", "forward rgba16f d32", "t"});
    big.merge(other);
    REQUIRE(big.pipelines.size() == 20010);
    CHECK(big.pipelines[19999].variant == "v19999");
    CHECK(big.pipelines[20000].variant == "v20000");
    auto decoded = usage::decode_usage(usage::encode_usage(big), "big.json");
    REQUIRE(decoded);
    CHECK(*decoded == big);
  }
}
