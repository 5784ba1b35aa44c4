// A warm cook keeps the shaders pack it proves whole: by reading it, or by the file identity a
// cook recorded after reading it once the pack had settled.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "cook_run.h"
#include "kiln/runtime/cooked_set.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

using test::cook;
using test::Cooked;
using test::slurp;
using test::spit;

// How far a change time must lie before a proof for the proof's identity to be trusted.
constexpr std::int64_t kSettleNs = 3'000'000'000;

std::int64_t ns(const timespec& t) { return std::int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

// The record a cook writes after proving `pack` by its bytes at `proved_ns`, written by hand.
void write_identity(const fs::path& out, const fs::path& pack, std::int64_t proved_ns) {
  std::istringstream inputs(slurp(out / ".shaders-inputs"));
  std::string header, file, digest, pack_digest;
  std::getline(inputs, header);
  inputs >> file >> digest >> pack_digest;
  REQUIRE(file == pack.filename().string());
  struct stat st {};
  REQUIRE(::stat(pack.c_str(), &st) == 0);
  std::ostringstream text;
  text << "kiln-pack-identity 1\n"
       << file << " " << pack_digest << " " << st.st_dev << " " << st.st_ino << " " << st.st_size << " "
       << ns(st.st_mtim) << " " << ns(st.st_ctim) << " " << proved_ns << "\n";
  spit(out / ".shaders-identity", text.str());
}

std::int64_t ctime_of(const fs::path& file) {
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  return ns(st.st_ctim);
}

bool kept(const Cooked& c) { return c.run.output.find("its shaders pack is kept") != std::string::npos; }

std::string proved_by(const Cooked& c) { return c.report["totals"].value("pack_proved_by", std::string()); }

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a kept shaders pack is proved by its file identity once settled - never after a write to it") {
    test::TempDir dir("cook");
    const fs::path project = test::copy_assets(dir), out = dir / "out", cache = dir / "cache";
    const Cooked cold = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(cold.run.exit_code == 0, cold.run.output);
    const fs::path pack = test::pack_file(out, "shaders");
    CHECK_FALSE(fs::exists(out / ".shaders-identity"));  // a cook that writes the pack proves none

    // Settled: the first warm cook reads the pack and records its identity; the next trusts it.
    std::this_thread::sleep_for(std::chrono::nanoseconds(kSettleNs + 100'000'000));
    const Cooked read = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(read.run.exit_code == 0, read.run.output);
    CHECK(kept(read));
    CHECK(proved_by(read) == "digest");
    CHECK(fs::exists(out / ".shaders-identity"));
    const Cooked trusted = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(trusted.run.exit_code == 0, trusted.run.output);
    CHECK(kept(trusted));
    CHECK(proved_by(trusted) == "identity");

    // A byte changed in place, the size the same: the identity no longer holds, the pack is read,
    // found damaged and built again.
    test::flip_middle_byte(pack);
    const Cooked damaged = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(damaged.run.exit_code == 0, damaged.run.output);
    CHECK_FALSE(kept(damaged));
    test::check_cooked_set(out);
    const fs::path rebuilt = test::pack_file(out, "shaders");

    // A record of the identity the pack has now: trusted when its proof began a margin after the
    // pack's change time; read again when the proof was within the margin (a write in the same
    // timestamp tick could have left the identity as it was).
    write_identity(out, rebuilt, ctime_of(rebuilt) + kSettleNs + 1'000'000'000);
    const Cooked settled = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(settled.run.exit_code == 0, settled.run.output);
    CHECK(proved_by(settled) == "identity");
    write_identity(out, rebuilt, ctime_of(rebuilt) + kSettleNs / 2);
    const Cooked racy = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(racy.run.exit_code == 0, racy.run.output);
    CHECK(kept(racy));
    CHECK(proved_by(racy) == "digest");

    // The record of another pack's bytes proves nothing, whatever the identity.
    write_identity(out, rebuilt, ctime_of(rebuilt) + kSettleNs + 1'000'000'000);
    std::string record = slurp(out / ".shaders-identity");
    const auto digest_at = record.find(' ', record.find('\n')) + 1;
    record[digest_at] = record[digest_at] == '0' ? '1' : '0';
    spit(out / ".shaders-identity", record);
    CHECK(proved_by(cook(dir, project, out, cache)) == "digest");
  }

  TEST_CASE("a cook that changes nothing writes nothing into its output directory - one that signs the set does") {
    test::TempDir dir("cook");
    const fs::path project = test::copy_assets(dir), out = dir / "out", cache = dir / "cache";
    REQUIRE(cook(dir, project, out, cache).run.exit_code == 0);
    struct stat before {};
    REQUIRE(::stat((out / "manifest.json").c_str(), &before) == 0);
    const std::string manifest = slurp(out / "manifest.json");
    const Cooked warm = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(warm.run.exit_code == 0, warm.run.output);
    CHECK(kept(warm));
    struct stat after {};
    REQUIRE(::stat((out / "manifest.json").c_str(), &after) == 0);
    CHECK(after.st_ino == before.st_ino);  // not written again, nor renamed over
    CHECK(ns(after.st_mtim) == ns(before.st_mtim));
    CHECK(slurp(out / "manifest.json") == manifest);

    // The same packs under a signature: the manifest changes alone, and is written.
    const fs::path key = dir / "release.key";
    REQUIRE(test::run_process({KILN_CLI, "key", "generate", key.string()}).exit_code == 0);
    const Cooked signed_set = cook(dir, project, out, cache, {"--sign", key.string()});
    REQUIRE_MESSAGE(signed_set.run.exit_code == 0, signed_set.run.output);
    CHECK(kept(signed_set));
    CHECK(nlohmann::json::parse(slurp(out / "manifest.json")).contains("signature"));
  }

  TEST_CASE("a cook that fails records no identity of the packs it proved - its output stays as it was") {
    test::TempDir dir("cook");
    const fs::path project = test::copy_assets(dir), out = dir / "out", cache = dir / "cache";
    REQUIRE(cook(dir, project, out, cache).run.exit_code == 0);
    std::map<std::string, std::string> before;
    for (const auto& e : fs::directory_iterator(out)) before[e.path().filename().string()] = slurp(e.path());
    // Settled: a cook that proves the kept packs by reading them would record their identities.
    std::this_thread::sleep_for(std::chrono::nanoseconds(kSettleNs + 100'000'000));
    std::ofstream(project / "scripts" / "gameplay_update.lua", std::ios::app) << "\nlocal x = = 1\n";
    const Cooked failed = cook(dir, project, out, cache);
    CHECK(failed.run.exit_code == 1);
    CHECK_MESSAGE(kept(failed), failed.run.output);  // the shaders pack was proved, by reading it
    std::map<std::string, std::string> after;
    for (const auto& e : fs::directory_iterator(out)) after[e.path().filename().string()] = slurp(e.path());
    CHECK(after == before);
    CHECK_FALSE(fs::exists(out / ".shaders-identity"));
    CHECK_FALSE(fs::exists(out / ".textures-identity"));
  }
}
