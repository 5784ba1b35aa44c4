// What a cook by usage records puts in a cooked set, read back by the runtime: the records' digest
// in the manifest (under the signature) and the recorded pipelines in the shaders pack, each
// checked when read.

#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/runtime/manifest.h"
#include "kiln/usage/usage_record.h"
#include "set_rewrite.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
using namespace kiln::runtime;
namespace fs = std::filesystem;

TEST_SUITE("runtime") {
  TEST_CASE("the manifest carries the usage digest - the signed text covers it - a bad one is refused") {
    Manifest m;
    for (PackKind kind : {PackKind::kShaders, PackKind::kScripts, PackKind::kTextures})
      m.packs[kind] = {pack_file_name(kind, 1), 10, 1, std::string(64, 'a')};
    m.usage_sha256 = std::string(64, 'b');
    auto decoded = decode_manifest(encode_manifest(m), "manifest.json");
    REQUIRE_MESSAGE(decoded, decoded.error().message);
    CHECK(decoded->usage_sha256 == m.usage_sha256);
    Manifest other = m;
    other.usage_sha256 = std::string(64, 'c');
    CHECK(manifest_signed_text(other) != manifest_signed_text(m));
    other.usage_sha256.clear();
    CHECK(encode_manifest(other).find("usage") == std::string::npos);
    auto doc = nlohmann::json::parse(encode_manifest(m));
    doc["usage"]["sha256"] = "B";
    auto bad = decode_manifest(doc.dump(), "manifest.json");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message.rfind("manifest.json: /usage/sha256: expected 64 lowercase hex digits", 0) == 0);
  }

  TEST_CASE("recorded pipelines ship in the shaders pack - one naming a variant the set lacks is named") {
    test::TempDir dir("usage-sets");
    const std::string assets = (fs::path(KILN_SOURCE_DIR) / "assets").string();
    const std::string cache = (dir / "cache").string();
    auto full = test::run_process({KILN_CLI, "cook", assets, "--out", (dir / "full").string(), "--cache-root", cache});
    REQUIRE_MESSAGE(full.exit_code == 0, full.output);
    auto set = CookedSet::open(dir / "full");
    REQUIRE(set);
    CHECK((*set)->recorded_pipelines()->empty());  // cooked without records
    // A record of every material's variants and two of their pipelines.
    usage::UsageRecord record;
    const std::string target = (*set)->targets().front();
    for (const auto& file : (*set)->ids(EntryKind::kMaterial)) {
      const auto material = (*set)->material(file);
      REQUIRE(material);
      for (const auto& pass : material->passes) record.variants.insert(variant_id(target, pass.variant));
    }
    const auto brick = (*set)->material("materials/brick.json");
    REQUIRE(brick);
    for (const auto& pass : brick->passes)
      record.pipelines.push_back({variant_id(target, pass.variant), pass.pass, "0:vec3", "x", target});
    record.pipelines.push_back({"other-target:shaders/lit|Forward|", "Forward", "", "", "other-target"});
    REQUIRE(usage::write_usage(dir / "record.json", record));
    auto lean = test::run_process({KILN_CLI, "cook", assets, "--out", (dir / "lean").string(), "--cache-root", cache,
                                   "--usage", (dir / "record.json").string()});
    REQUIRE_MESSAGE(lean.exit_code == 0, lean.output);
    auto cooked = CookedSet::open(dir / "lean");
    REQUIRE(cooked);
    REQUIRE((*cooked)->check());
    auto pipelines = (*cooked)->recorded_pipelines();
    REQUIRE_MESSAGE(pipelines, pipelines.error().message);
    // The default target's, in the record's order; another target's are not this set's.
    CHECK(*pipelines == std::vector<usage::PipelineUse>(record.pipelines.begin(), record.pipelines.begin() + 3));

    // A forged entry naming a variant the set lacks, and one that does not decode: each named.
    const std::string entry = entry_name(EntryKind::kPipelines, target);
    test::rewrite_set(dir / "lean", dir / "forged", [&](PackKind, const std::string& name, std::vector<std::byte> b) {
      if (name != entry) return b;
      usage::UsageRecord forged;
      forged.pipelines.push_back({variant_id(target, "shaders/lit|Forward|GONE"), "Forward", "", "", target});
      const std::string text = usage::encode_usage(forged);
      const auto bytes = std::as_bytes(std::span(text));
      return std::vector<std::byte>(bytes.begin(), bytes.end());
    });
    auto forged = CookedSet::open(dir / "forged");
    REQUIRE(forged);
    auto checked = (*forged)->check();
    REQUIRE_FALSE(checked);
    CHECK(checked.error().message.find(entry + ": pipeline of " + target + ":shaders/lit|Forward|GONE") !=
          std::string::npos);
    test::rewrite_set(dir / "lean", dir / "garbage", [&](PackKind, const std::string& name, std::vector<std::byte> b) {
      if (name == entry) b.resize(b.size() / 2);
      return b;
    });
    auto garbage = CookedSet::open(dir / "garbage");
    REQUIRE(garbage);
    auto read = (*garbage)->recorded_pipelines();
    REQUIRE_FALSE(read);
    CHECK(read.error().message.find(entry) != std::string::npos);
    CHECK_FALSE((*garbage)->check());
  }
}
