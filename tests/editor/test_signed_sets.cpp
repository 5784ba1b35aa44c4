// Signed cooked sets end to end: `kiln key generate`, `kiln cook --sign`, `kiln-player --trust`,
// `kiln set verify`. A set whose compiled pages were replaced by breakpoints (every checksum
// recomputed) traps the player without trust, and is refused before any script runs with it.

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <csignal>
#include <cstring>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/runtime/pack.h"
#include "cook_run.h"
#include "set_rewrite.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

test::RunResult kiln_cli(std::vector<std::string> args) {
  args.insert(args.begin(), KILN_CLI);
  return test::run_process(args);
}

// The player without a device (the checks and the scripts, no rendering).
test::RunResult play(const fs::path& set, const fs::path& cache, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {KILN_PLAYER, set.string(), "--cache-root", cache.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return test::run_process(argv, {{"KILN_RENDER_DEVICE", "none"}});
}

// A compiled page's machine code all breakpoints (int3): the header is magic, function offset,
// alignment, entry count, code length, tail words; then the entries, the page words and the code.
std::vector<std::byte> breakpoints(std::vector<std::byte> page) {
  std::uint32_t header[6];
  REQUIRE(page.size() >= sizeof header);
  std::memcpy(header, page.data(), sizeof header);
  const std::size_t code_at = 24 + std::size_t(header[3]) * 2 + (1024 + std::size_t(header[5])) * 4;
  REQUIRE(code_at + header[4] <= page.size());
  std::memset(page.data() + code_at, 0xCC, header[4]);
  return page;
}

struct SignedProject {
  test::TempDir dir{"signed"};
  fs::path key = dir / "release.key", pub = dir / "release.key.pub";
  fs::path set = dir / "set", cache = dir / "cache";
  test::RunResult cooked;
  SignedProject() {
    const auto generated = kiln_cli({"key", "generate", key.string()});
    REQUIRE_MESSAGE(generated.exit_code == 0, generated.output);
    cooked = kiln_cli({"cook", KILN_SOURCE_DIR "/assets", "--out", set.string(), "--cache-root", cache.string(),
                       "--sign", key.string()});
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
  }
};

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a signed set plays under --trust - changed - unsigned and foreign sets are refused naming the signature") {
    SignedProject p;
    struct stat st;
    REQUIRE(::stat(p.key.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    const std::string id = nlohmann::json::parse(test::slurp(p.set / "manifest.json"))["signature"]["key"];
    CHECK(has(p.cooked.output, "cook: signed by key " + id));

    const auto played = play(p.set, p.dir / "pc", {"--trust", p.pub.string(), "--json"});
    REQUIRE_MESSAGE(played.exit_code == 0, played.output);
    const auto report = nlohmann::json::parse(played.output.substr(played.output.rfind("\n{") + 1));
    CHECK(report["signed_by"] == id);
    CHECK(report["scripts"].size() > 0);

    // A byte of a texture changed, every checksum and the manifest's SHA-256 recomputed.
    test::rewrite_set(p.set, p.dir / "changed",
                      [](runtime::PackKind kind, const std::string&, std::vector<std::byte> b) {
                        if (kind == runtime::PackKind::kTextures) b.back() ^= std::byte{1};
                        return b;
                      });
    REQUIRE(runtime::CookedSet::open(p.dir / "changed"));  // checksums cannot tell
    const auto changed = play(p.dir / "changed", p.dir / "pc", {"--trust", p.pub.string()});
    CHECK(changed.exit_code == 1);
    CHECK_MESSAGE(has(changed.output, "refused: its signature by key " + id + " does not match"), changed.output);

    // The same project cooked unsigned, and signed by another key.
    const auto unsigned_cook = kiln_cli(
        {"cook", KILN_SOURCE_DIR "/assets", "--out", (p.dir / "unsigned").string(), "--cache-root", p.cache.string()});
    REQUIRE(unsigned_cook.exit_code == 0);
    const auto refused_unsigned = play(p.dir / "unsigned", p.dir / "pc", {"--trust", p.pub.string()});
    CHECK(refused_unsigned.exit_code == 1);
    CHECK_MESSAGE(has(refused_unsigned.output, "refused: the set is not signed"), refused_unsigned.output);
    REQUIRE(kiln_cli({"key", "generate", (p.dir / "other.key").string()}).exit_code == 0);
    REQUIRE(kiln_cli({"cook", KILN_SOURCE_DIR "/assets", "--out", (p.dir / "foreign").string(), "--cache-root",
                      p.cache.string(), "--sign", (p.dir / "other.key").string()})
                .exit_code == 0);
    const auto refused_foreign = play(p.dir / "foreign", p.dir / "pc", {"--trust", p.pub.string()});
    CHECK(refused_foreign.exit_code == 1);
    CHECK_MESSAGE(has(refused_foreign.output, "which is not trusted"), refused_foreign.output);
    // Two trusted keys (rotation), through the setting: both sets play.
    for (const char* set : {"set", "foreign"}) {
      const auto rotated =
          test::run_process({KILN_PLAYER, (p.dir / set).string(), "--cache-root", (p.dir / "pc").string()},
                            {{"KILN_RENDER_DEVICE", "none"},
                             {"KILN_PLAYER_TRUSTED_KEYS", p.pub.string() + ":" + (p.dir / "other.key.pub").string()}});
      CHECK_MESSAGE(rotated.exit_code == 0, rotated.output);
    }
    // Signatures required, no key listed: nothing plays.
    const auto no_keys = play(p.set, p.dir / "pc", {"--player-require-signature", "true"});
    CHECK(no_keys.exit_code == 1);
    CHECK(has(no_keys.output, "player.trusted_keys names no key"));
  }

  TEST_CASE("a page of breakpoints with every checksum recomputed traps the player - under trust it is refused") {
    SignedProject p;
    const auto int3 = [](runtime::PackKind kind, const std::string& name, std::vector<std::byte> b) {
      return kind == runtime::PackKind::kScripts && name.rfind("page:", 0) == 0 ? breakpoints(std::move(b)) : b;
    };
    test::rewrite_set(p.set, p.dir / "recomputed", int3);
    test::patch_set_in_place(p.set, p.dir / "in-place", int3);
    // Without trust the forged code runs: the crash the checksums cannot prevent. (Patched in place,
    // each page fails its own checksum and runs interpreted.)
    const auto trapped = play(p.dir / "recomputed", p.dir / "pc");
    CHECK_MESSAGE(trapped.exit_code == 128 + SIGTRAP, trapped.output);
    const auto interpreted = play(p.dir / "in-place", p.dir / "pc");
    CHECK_MESSAGE(interpreted.exit_code == 0, interpreted.output);
    CHECK(has(interpreted.output, "the page runs interpreted"));
    const std::pair<const char*, const char*> refusals[] = {
        {"in-place", "is not the one the signed manifest names"},  // the manifest as signed, a pack not
        {"recomputed", "does not match its contents"}};            // the manifest no longer as signed
    for (const auto& refusal : refusals) {
      const std::string set = refusal.first, why = refusal.second;
      CAPTURE(set);
      const auto refused = play(p.dir / set, p.dir / "pc", {"--trust", p.pub.string()});
      CHECK(refused.exit_code == 1);
      CHECK_MESSAGE(has(refused.output, "kiln-player: "), refused.output);
      CHECK_MESSAGE(has(refused.output, why), refused.output);
      CHECK_FALSE(has(refused.output, "player: scripts/"));  // no script ran
    }
    // kiln set verify says the same, and vouches for the original.
    const auto bad = kiln_cli({"set", "verify", (p.dir / "in-place").string(), "--trust", p.pub.string()});
    CHECK(bad.exit_code == 1);
    CHECK(has(bad.output, "is not the one the signed manifest names"));
    const auto good = kiln_cli({"set", "verify", p.set.string(), "--trust", p.pub.string(), "--json"});
    REQUIRE_MESSAGE(good.exit_code == 0, good.output);
    const auto verified = nlohmann::json::parse(good.output);
    CHECK(verified["trusted"] == true);
    CHECK(verified["key"] == nlohmann::json::parse(test::slurp(p.set / "manifest.json"))["signature"]["key"]);
    CHECK(verified["packs"].size() == 3);
    // Without a trusted key it names the signer and says it could not vouch for it.
    const auto untrusted = kiln_cli({"set", "verify", p.set.string()});
    CHECK(untrusted.exit_code == 0);
    CHECK(has(untrusted.output, "not checked against a trusted key"));
  }

  TEST_CASE("kiln cook --sign refuses a key others may read - a public key - and a shard that would sign") {
    test::TempDir dir("signed");
    const fs::path key = dir / "k";
    REQUIRE(kiln_cli({"key", "generate", key.string()}).exit_code == 0);
    const auto again = kiln_cli({"key", "generate", key.string()});
    CHECK(again.exit_code == 1);
    CHECK(has(again.output, "already exists"));
    // The project names its key (relative to the project): a plain cook signs.
    const fs::path project = test::copy_assets(dir);
    test::spit(project / "kiln.json", R"({"cook": {"sign_key": "../k"}})");
    const auto by_project = kiln_cli(
        {"cook", project.string(), "--out", (dir / "project-out").string(), "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(by_project.exit_code == 0, by_project.output);
    const std::string id =
        nlohmann::json::parse(test::slurp(dir / "project-out" / "manifest.json"))["signature"]["key"];
    CHECK_MESSAGE(has(by_project.output, "cook: signed by key " + id), by_project.output);
    ::chmod(key.c_str(), 0644);
    const auto loose = kiln_cli({"cook", KILN_SOURCE_DIR "/assets", "--out", (dir / "out").string(), "--cache-root",
                                 (dir / "cache").string(), "--sign", key.string()});
    CHECK(loose.exit_code == 2);
    CHECK_MESSAGE(has(loose.output, "others may read it (mode 0644): chmod 600"), loose.output);
    CHECK_FALSE(fs::exists(dir / "out"));
    // The setting names the key as --sign does (from the environment here): a public key is not one
    // to sign with, whatever its mode.
    ::chmod((key.string() + ".pub").c_str(), 0600);
    const auto by_setting = test::run_process({KILN_CLI, "cook", KILN_SOURCE_DIR "/assets", "--out",
                                               (dir / "out").string(), "--cache-root", (dir / "cache").string()},
                                              {{"KILN_COOK_SIGN_KEY", key.string() + ".pub"}});
    CHECK(by_setting.exit_code == 2);
    CHECK_MESSAGE(has(by_setting.output, "it is a public key: sign with the private one"), by_setting.output);
    const auto shard = kiln_cli({"cook", KILN_SOURCE_DIR "/assets", "--shard", "1/2", "--cache-root",
                                 (dir / "cache").string(), "--sign", key.string()});
    CHECK(shard.exit_code == 2);
    CHECK(has(shard.output, "a shard signs nothing"));
  }
}

TEST_SUITE("editor") {
  TEST_CASE("a cook that signs nothing never loads libcrypto - one that signs loads it") {
    test::TempDir dir("signed");
    const fs::path key = dir / "release.key";
    REQUIRE(kiln_cli({"key", "generate", key.string()}).exit_code == 0);
    const auto maps_libcrypto = [&](const std::string& name, std::vector<std::string> extra) {
      std::vector<std::string> argv = {KILN_CLI,
                                       "cook",
                                       KILN_SOURCE_DIR "/assets",
                                       "--out",
                                       (dir / name).string(),
                                       "--cache-root",
                                       (dir / "cache").string()};
      argv.insert(argv.end(), extra.begin(), extra.end());
      return test::libraries_mapped_by_tools(argv, dir / ("trace-" + name)).count("libcrypto.so.3") > 0;
    };
    CHECK_FALSE(maps_libcrypto("plain", {}));
    CHECK(maps_libcrypto("signed", {"--sign", key.string()}));
    CHECK(nlohmann::json::parse(test::slurp(dir / "signed" / "manifest.json")).contains("signature"));
  }
}
