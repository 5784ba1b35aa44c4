// A full disk under the output directory and under the cache: the cook fails with a clear error,
// nothing partial is accepted, and the previous set still loads. On a small tmpfs when the tests
// may mount one (root); otherwise with a file size limit (RLIMIT_FSIZE) injecting the same ENOSPC-like
// write failures (EFBIG) into the cook.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>

#include "child_process.h"
#include "kiln/runtime/cooked_set.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

using test::slurp;

// A directory with little room: a tmpfs of `kib` KiB, or (without the right to mount) an ordinary
// directory where writes are made to fail by a file size limit of `kib` KiB on the tool.
struct SmallDisk {
  fs::path dir;
  bool mounted = false;
  std::size_t kib;
  SmallDisk(fs::path where, std::size_t size_kib) : dir(std::move(where)), kib(size_kib) {
    fs::create_directories(dir);
    // KILN_TEST_NO_MOUNT=1 tries the fallback where mounting would work.
    if (::geteuid() == 0 && !std::getenv("KILN_TEST_NO_MOUNT"))
      mounted = test::run_process(
                    {"/bin/mount", "-t", "tmpfs", "-o", "size=" + std::to_string(kib) + "k", "tmpfs", dir.string()})
                    .exit_code == 0;
    MESSAGE(std::string(mounted ? "full disk: a tmpfs of " : "full disk: a file size limit of ") << kib << " KiB");
  }
  ~SmallDisk() {
    if (mounted) (void)test::run_process({"/bin/umount", dir.string()});
  }
  // The tool's command line, with the file size limit when there is no tmpfs. SIGXFSZ is ignored
  // so that a write past the limit fails (EFBIG) instead of killing the tool.
  std::vector<std::string> wrap(std::vector<std::string> argv) const {
    if (mounted) return argv;
    std::vector<std::string> out = {
        "/bin/sh", "-c", "trap '' XFSZ; exec /usr/bin/prlimit --fsize=" + std::to_string(kib * 1024) + " \"$@\"", "sh"};
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
  }
};

using test::copy_assets;

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a full disk under the output fails the cook clearly - the previous set stays whole and loads") {
    test::TempDir dir("diskfull");
    const fs::path a = copy_assets(dir, "a"), b = copy_assets(dir, "b");
    // b differs in its scripts and textures packs (about 210 KiB together).
    std::ofstream(b / "scripts/gameplay_update.lua", std::ios::app) << "print(2)\n";
    fs::copy_file(b / "textures/sky.png", b / "textures/sky2.png");
    {
      std::string sky = slurp(b / "materials/sky.json");
      sky.replace(sky.find("textures/sky.png"), 16, "textures/sky2.png");
      std::ofstream(b / "materials/sky.json", std::ios::trunc) << sky;
    }
    // Room for one set (about 430 KiB) and a little more, not for the new packs beside it.
    SmallDisk disk(dir / "disk", 560);
    const fs::path out = disk.dir / "out";
    auto cook = [&](const fs::path& project, const fs::path& cache) {
      return test::run_process(
          disk.wrap({KILN_CLI, "cook", project.string(), "--out", out.string(), "--cache-root", cache.string()}));
    };
    // The first set fits (with a file size limit, each pack is under it).
    auto r = cook(a, dir / "cache");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::string manifest = slurp(out / "manifest.json");
    std::map<std::string, std::string> before;
    for (const auto& e : fs::directory_iterator(out)) before[e.path().filename().string()] = slurp(e.path());

    if (!disk.mounted) {
      // The limit stands in for the disk: less than the new textures pack (about 115 KiB).
      disk.kib = 100;
    }
    r = cook(b, dir / "cache");
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE((r.output.find("No space left on device") != std::string::npos ||
                   r.output.find("File too large") != std::string::npos),
                  r.output);
    CHECK(r.output.find(out.string()) != std::string::npos);  // the message names where
    // Nothing partial: exactly the files of the previous set, byte for byte, and it loads.
    std::map<std::string, std::string> after;
    for (const auto& e : fs::directory_iterator(out)) after[e.path().filename().string()] = slurp(e.path());
    CHECK(after == before);
    auto set = runtime::CookedSet::open(out);
    REQUIRE_MESSAGE(set, set.error().message);
    CHECK((*set)->check());
    auto played = test::run_process({KILN_PLAYER, out.string(), "--cache-root", (dir / "player-cache").string()});
    CHECK_MESSAGE(played.exit_code == 0, played.output);
  }

  TEST_CASE(
      "a full disk under the cache never yields a torn cache entry - the next cook with room accepts or rebuilds it") {
    test::TempDir dir("diskfull");
    const fs::path project = copy_assets(dir, "p");
    SmallDisk disk(dir / "disk", 128);  // less than the caches need (about 600 KiB)
    const fs::path cache = disk.dir / "cache";
    auto r = test::run_process(disk.wrap(
        {KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root", cache.string()}));
    // The caches are an optimisation: the cook may succeed without them, or fail naming the problem.
    if (r.exit_code != 0) {
      CHECK(r.exit_code == 1);
      CHECK_MESSAGE((r.output.find("No space left on device") != std::string::npos ||
                     r.output.find("File too large") != std::string::npos),
                    r.output);
    } else {
      CHECK(runtime::CookedSet::open(dir / "out"));
    }
    // Whatever landed in the cache verifies; a later cook with room builds the same set as a cook
    // from an empty cache.
    r = test::run_process({KILN_CLI, "cache", "verify", "--cache-root", cache.string()});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find(" 0 corrupt") != std::string::npos);
    const fs::path roomy = dir / "roomy-cache";
    fs::copy(cache, roomy, fs::copy_options::recursive);
    r = test::run_process(
        {KILN_CLI, "cook", project.string(), "--out", (dir / "out2").string(), "--cache-root", roomy.string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    r = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out3").string(), "--cache-root",
                           (dir / "fresh").string()});
    REQUIRE(r.exit_code == 0);
    CHECK(slurp(dir / "out2/manifest.json") == slurp(dir / "out3/manifest.json"));
  }
}
