// The cache directory as an attacker or an unlucky user leaves it: FIFOs and huge files where
// entries belong, open permissions, entries that a verify run finds wrong, temp files of killed
// writers. Every tool keeps working, reads nothing unbounded, serves nothing wrong, and leaves the
// cache private and clean. Through the real `kiln` process.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>

#include <nlohmann/json.hpp>

#include "cache_entries.h"
#include "child_process.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

using test::slurp;

const fs::path kScript = fs::path(KILN_SOURCE_DIR) / "assets/scripts/numeric_kernel.lua";

test::RunResult run_script(const fs::path& cache, std::map<std::string, std::string> env = {},
                           const fs::path& script = kScript) {
  // `timeout`: a hang fails the test (exit 124) instead of stopping the suite.
  return test::run_process(
      {"/usr/bin/timeout", "60", KILN_CLI, "script", "run", script.string(), "--cache-root", cache.string()}, env);
}

// A script of one page that gets hot in every run. (Which of kScript's pages get hot depends on when
// compiled code arrives: once the chunk runs compiled, the function it compiles in never gets hot.)
fs::path one_page_script(const fs::path& dir) {
  const fs::path script = dir / "one_page.lua";
  test::spit(script, "local s = 0\nfor i = 1, 20000 do s = s + i % 7 end\nprint(s)\n");
  return script;
}

test::RunResult cook(const fs::path& out, const fs::path& cache, bool verify = false) {
  std::vector<std::string> argv = {"/usr/bin/timeout",
                                   "300",
                                   KILN_CLI,
                                   "cook",
                                   (fs::path(KILN_SOURCE_DIR) / "assets").string(),
                                   "--out",
                                   out.string(),
                                   "--cache-root",
                                   cache.string()};
  if (verify) argv.push_back("--verify");
  return test::run_process(argv);
}

// Every FIFO, socket or device below `dir`.
std::vector<fs::path> special_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    struct stat st;
    if (::lstat(e.path().c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) out.push_back(e.path());
  }
  return out;
}

// Only root can give a file to another user; CI runs the suite as root. Elsewhere the tests that
// need it say so and stop.
bool can_give_files_away() {
  if (::geteuid() == 0) return true;
  MESSAGE("not root: cannot make files owned by another user here");
  return false;
}

// Every file or directory below `dir` (and `dir`) that group or others may touch.
std::vector<fs::path> open_to_others(const fs::path& dir) {
  std::vector<fs::path> out;
  struct stat st;
  if (::lstat(dir.c_str(), &st) == 0 && (st.st_mode & 077)) out.push_back(dir);
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (::lstat(e.path().c_str(), &st) == 0 && !S_ISLNK(st.st_mode) && (st.st_mode & 077)) out.push_back(e.path());
  return out;
}

// chmod -R 0777 `dir`, as a careless copy or another tool leaves a cache.
void open_everything(const fs::path& dir) {
  fs::permissions(dir, fs::perms::all);
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (!e.is_symlink()) fs::permissions(e.path(), fs::perms::all);
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("FIFOs in place of cached pages never hang kiln script run - it runs right and removes them") {
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    const fs::path script = one_page_script(dir.path());  // every page looked up again: each FIFO met
    const auto first = run_script(cache, {}, script);
    REQUIRE_MESSAGE(first.exit_code == 0, first.output);
    const auto pages = test::cache_entries(cache, "jit");
    REQUIRE_FALSE(pages.empty());
    for (const fs::path& page : pages) {
      fs::remove(page);
      REQUIRE(::mkfifo(page.c_str(), 0600) == 0);
    }
    const auto second = run_script(cache, {}, script);
    CHECK_MESSAGE(second.exit_code == 0, second.output);
    CHECK(second.output == first.output);
    CHECK(special_files(cache).empty());
  }

  TEST_CASE("a FIFO in place of the page cache key never hangs kiln script run - the script runs without the cache") {
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    const auto first = run_script(cache);
    REQUIRE_MESSAGE(first.exit_code == 0, first.output);
    const fs::path key = test::page_cache_key(cache);
    REQUIRE(fs::exists(key));
    fs::remove(key);
    REQUIRE(::mkfifo(key.c_str(), 0600) == 0);
    const auto second = run_script(cache);
    CHECK_MESSAGE(second.exit_code == 0, second.output);
    // The script's own lines are all there, and one more says why the page cache is off.
    CHECK(second.output.find(first.output) != std::string::npos);
    CHECK(second.output.find("secret.key") != std::string::npos);
    CHECK(second.output.find("not a regular file") != std::string::npos);
  }

  TEST_CASE("a huge sparse file in place of a cached page is refused before it is read") {
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    const auto first = run_script(cache);
    REQUIRE_MESSAGE(first.exit_code == 0, first.output);
    const auto pages = test::cache_entries(cache, "jit");
    REQUIRE_FALSE(pages.empty());
    for (const fs::path& page : pages) fs::resize_file(page, std::uintmax_t{2} << 30);
    const auto second = test::run_process({"/usr/bin/timeout", "60", KILN_CLI, "script", "run", kScript.string(),
                                           "--cache-root", cache.string(), "--json"});
    REQUIRE_MESSAGE(second.exit_code == 0, second.output);
    const auto report = nlohmann::json::parse(second.output);
    CHECK(report["output"] == first.output);
    // Reading one of them whole would take 2 GiB; the tool's own peak is far below 1 GiB.
    MESSAGE("peak resident memory: " << second.max_rss_kib / 1024 << " MiB");
    CHECK(second.max_rss_kib < 1024 * 1024);
    // Each one the run looked up was deleted, and its page compiled and stored again; which pages
    // get hot (and are looked up) depends on when compiled code arrives, so the rest stay as they were.
    const std::size_t refused = report["jit"]["corrupt"].get<std::size_t>();
    CHECK(refused >= 1);
    std::size_t still_huge = 0;
    for (const fs::path& page : test::cache_entries(cache, "jit"))
      still_huge += fs::file_size(page) >= (std::uintmax_t{1} << 20);
    CHECK(still_huge == pages.size() - refused);
  }

  TEST_CASE("every cache directory and file is private to the user - open permissions are closed") {
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    REQUIRE(run_script(cache).exit_code == 0);
    fs::permissions(cache, fs::perms::all);
    fs::permissions(cache / "jit", fs::perms::all);
    const auto cooked = cook(dir / "out", cache);
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
    REQUIRE(run_script(cache).exit_code == 0);
    REQUIRE_FALSE(test::cache_entries(cache, "textures").empty());
    int checked = 0;
    for (const auto& e : fs::recursive_directory_iterator(cache)) {
      struct stat st;
      REQUIRE(::lstat(e.path().c_str(), &st) == 0);
      CAPTURE(e.path());
      CHECK((st.st_mode & 077) == 0);
      ++checked;
    }
    struct stat root;
    REQUIRE(::lstat(cache.c_str(), &root) == 0);
    CHECK((root.st_mode & 077) == 0);
    CHECK(checked > 10);
  }

  TEST_CASE("a cache directory owned by another user is refused by name - the tool works without it") {
    if (!can_give_files_away()) return;
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    const auto first = run_script(cache);
    REQUIRE_MESSAGE(first.exit_code == 0, first.output);
    const fs::path jit = cache / "jit";
    for (const auto& e : fs::recursive_directory_iterator(jit)) REQUIRE(::lchown(e.path().c_str(), 65534, 65534) == 0);
    REQUIRE(::lchown(jit.c_str(), 65534, 65534) == 0);
    const auto second = run_script(cache);
    CHECK_MESSAGE(second.exit_code == 0, second.output);
    CHECK(second.output.find(first.output) != std::string::npos);
    CHECK(second.output.find(jit.string()) != std::string::npos);
    CHECK(second.output.find("owned by uid 65534") != std::string::npos);
  }

  TEST_CASE("a cache a cook cannot use changes nothing it writes - and is said once - naming the directory") {
    test::TempDir dir("cachedirs");
    REQUIRE(cook(dir / "base", dir / "cache").exit_code == 0);
    const std::string base = test::slurp(dir / "base" / "manifest.json");
    auto lines_with = [](const std::string& text, const std::string& part) {
      int n = 0;
      for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
      return n;
    };
    // A file where the root should be: no store at all.
    test::spit(dir / "a-file", "not a directory");
    auto r = cook(dir / "out-file", dir / "a-file");
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK_MESSAGE(lines_with(r.output, "kiln cook: persistent cache off: " + (dir / "a-file").string()) == 1, r.output);
    CHECK(test::slurp(dir / "out-file" / "manifest.json") == base);
    // A symbolic link to a directory of one's own: refused for being a link, nothing written through it.
    fs::create_directories(dir / "target");
    fs::create_symlink(dir / "target", dir / "link");
    r = cook(dir / "out-link", dir / "link");
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK_MESSAGE(r.output.find("cache root is a symbolic link") != std::string::npos, r.output);
    CHECK(fs::is_empty(dir / "target"));
    CHECK(test::slurp(dir / "out-link" / "manifest.json") == base);
    if (!can_give_files_away()) return;
    // The shaders kind of a filled cache given to another user: one line for it, the set unchanged.
    fs::copy(dir / "cache", dir / "given", fs::copy_options::recursive);
    const fs::path shaders = dir / "given" / "shaders";
    for (const auto& e : fs::recursive_directory_iterator(shaders))
      REQUIRE(::lchown(e.path().c_str(), 65534, 65534) == 0);
    REQUIRE(::lchown(shaders.c_str(), 65534, 65534) == 0);
    r = cook(dir / "out-given", dir / "given");
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK_MESSAGE(lines_with(r.output, "kiln cook: shaders cache off: " + shaders.string()) == 1, r.output);
    CHECK_MESSAGE(r.output.find("owned by uid 65534") != std::string::npos, r.output);
    CHECK(test::slurp(dir / "out-given" / "manifest.json") == base);
  }

  TEST_CASE("cook --verify removes a cached variant that differs - the next cook ships a fresh compile") {
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    REQUIRE(cook(dir / "clean", cache).exit_code == 0);
    // The manifest names every pack by a hash of its contents.
    const std::string clean_set = slurp(dir / "clean" / "manifest.json");
    REQUIRE_FALSE(clean_set.empty());
    // One variant's blob now holds another variant's record: sound as a blob, wrong as a variant.
    auto blobs = test::cache_entries(cache, "shaders");
    REQUIRE(blobs.size() >= 2);
    std::sort(blobs.begin(), blobs.end(),
              [](const fs::path& a, const fs::path& b) { return fs::file_size(a) < fs::file_size(b); });
    test::rewrite_blob_payload(blobs.front(), test::blob_payload(blobs.back()));

    const auto verified = cook(dir / "verified", cache, true);
    CHECK(verified.exit_code != 0);
    CHECK(verified.output.find("differs from a fresh compile") != std::string::npos);
    const auto again = cook(dir / "again", cache);
    REQUIRE_MESSAGE(again.exit_code == 0, again.output);
    CHECK(slurp(dir / "again" / "manifest.json") == clean_set);
  }

  TEST_CASE("with the page cache verified no cached page runs before it is compared - and a difference fails the run") {
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    const fs::path script = one_page_script(dir.path());
    const auto first = run_script(cache, {}, script);
    REQUIRE_MESSAGE(first.exit_code == 0, first.output);
    // Pages signed with the user's own key whose code is all breakpoints (int3): run, they trap.
    const int forged = test::forge_cached_pages(cache, 0xCC);
    REQUIRE(forged > 0);
    // The script runs on fresh code and prints what it printed; the difference fails the run, as it
    // fails a cook.
    const auto verified = run_script(cache, {{"KILN_JIT_CACHE_VERIFY", "1"}}, script);
    CHECK_MESSAGE(verified.exit_code == 1, verified.output);
    CHECK(verified.output.find(first.output) == 0);
    CHECK(verified.output.find(std::to_string(forged) +
                               (forged == 1 ? " cached page differs" : " cached pages differ") +
                               " from a fresh compile") != std::string::npos);
    // The differing pages were replaced: a plain run now serves good code.
    const auto after = run_script(cache, {}, script);
    CHECK_MESSAGE(after.exit_code == 0, after.output);
    CHECK(after.output == first.output);
  }

  TEST_CASE("kiln cache verify checks every kind - and prune holds the cap over every kind") {
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    REQUIRE(cook(dir / "out", cache).exit_code == 0);
    REQUIRE(run_script(cache).exit_code == 0);
    int damaged = 0;
    for (const char* kind : {"shaders", "jit", "textures"}) {
      const auto entries = test::cache_entries(cache, kind);
      REQUIRE_MESSAGE(!entries.empty(), kind);
      fs::resize_file(entries.front(), fs::file_size(entries.front()) - 1);
      ++damaged;
    }
    auto r = test::run_process({KILN_CLI, "cache", "verify", "--json", "--cache-root", cache.string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const auto verified = nlohmann::json::parse(r.output.substr(r.output.rfind("\n{") + 1));
    CHECK(verified["corrupt"] == damaged);

    r = test::run_process({KILN_CLI, "cache", "prune", "--cache-root", cache.string()}, {{"KILN_CACHE_DISK_MAX", "1"}});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    for (const char* kind : {"shaders", "jit", "textures"}) {
      CAPTURE(kind);
      CHECK(test::cache_entries(cache, kind).empty());
    }
  }

  TEST_CASE("kiln cache stats and clear cover every kind - one cap holds over all kinds at once") {
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    REQUIRE(cook(dir / "out", cache).exit_code == 0);
    REQUIRE(run_script(cache).exit_code == 0);
    const auto stats = [&](std::map<std::string, std::string> env = {}) {
      auto r = test::run_process({KILN_CLI, "cache", "stats", "--json", "--cache-root", cache.string()}, env);
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      return nlohmann::json::parse(r.output);
    };
    // A second cook and run: every lookup hits. Each tool adds what it counted when it closes.
    REQUIRE(cook(dir / "out2", cache).exit_code == 0);  // another set: the cook reads every variant
    REQUIRE(run_script(cache).exit_code == 0);
    const auto full = stats();
    for (const char* kind : {"shaders", "jit", "textures"}) {
      CAPTURE(kind);
      const auto& use = full["kinds"][kind]["use"];
      const auto entries = full["kinds"][kind]["entries"].get<std::uint64_t>();
      CHECK(use["misses"].get<std::uint64_t>() >= entries);  // the first tool to need each entry
      CHECK(use["hits"].get<std::uint64_t>() >= entries);    // the second
      CHECK(use["writes"].get<std::uint64_t>() >= entries);
    }
    std::uint64_t total = 0;
    for (const char* kind : {"shaders", "jit", "textures"}) {
      CAPTURE(kind);
      const auto& k = full["kinds"][kind];
      // Every entry of the kind: the jit kind also keeps the script compiler's fingerprint.
      auto entries = test::cache_entries(cache, kind);
      if (std::string(kind) == "jit")
        for (const fs::path& kept : test::kept_fingerprints(cache)) entries.push_back(kept);
      CHECK(k["entries"].get<std::size_t>() == entries.size());
      CHECK(k["entries"].get<int>() > 0);
      std::uint64_t bytes = 0;
      for (const fs::path& e : entries) bytes += fs::file_size(e);
      CHECK(k["bytes"].get<std::uint64_t>() == bytes);
      total += bytes;
    }
    CHECK(full["bytes"].get<std::uint64_t>() == total);
    // The people's form names every kind with human units.
    const auto text = test::run_process({KILN_CLI, "cache", "stats", "--cache-root", cache.string()});
    REQUIRE(text.exit_code == 0);
    for (const char* word : {"shaders", "jit", "textures", "KiB"}) CHECK(text.output.find(word) != std::string::npos);

    // Half the bytes as the cap: pruning brings the whole cache under it, taking from every kind by age.
    const std::string cap = std::to_string(total / 2);
    auto pruned =
        test::run_process({KILN_CLI, "cache", "prune", "--cache-root", cache.string()}, {{"KILN_CACHE_DISK_MAX", cap}});
    REQUIRE_MESSAGE(pruned.exit_code == 0, pruned.output);
    const auto after = stats();
    CHECK(after["bytes"].get<std::uint64_t>() <= total / 2);
    CHECK(after["bytes"].get<std::uint64_t>() > 0);
    CHECK(after["use"]["evictions"].get<std::uint64_t>() > 0);

    auto cleared =
        test::run_process({KILN_CLI, "cache", "clear", "--kind", "textures", "--cache-root", cache.string()});
    REQUIRE_MESSAGE(cleared.exit_code == 0, cleared.output);
    CHECK(test::cache_entries(cache, "textures").empty());
    const auto partly = stats();
    CHECK(partly["kinds"]["shaders"]["entries"] == after["kinds"]["shaders"]["entries"]);
    CHECK(partly["kinds"]["textures"]["use"]["hits"] == 0);  // clearing a kind starts its counting again
    CHECK(partly["kinds"]["shaders"]["use"] == after["kinds"]["shaders"]["use"]);
    cleared = test::run_process({KILN_CLI, "cache", "clear", "--cache-root", cache.string()});
    REQUIRE_MESSAGE(cleared.exit_code == 0, cleared.output);
    CHECK(stats()["entries"] == 0);
    // A cook after a clear rebuilds everything and writes the same set.
    REQUIRE(cook(dir / "again", cache).exit_code == 0);
    CHECK(slurp(dir / "again" / "manifest.json") == slurp(dir / "out" / "manifest.json"));
  }

  TEST_CASE("pruning to one build keeps every backend of the current build") {
    test::TempDir dir("cachedirs");
    const fs::path project = dir / "project", cache = dir / "cache";
    fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", project, fs::copy_options::recursive);
    std::ofstream(project / "kiln.json")
        << R"({"cook": {"targets": [{"backend": "spirv"}, {"backend": "glsl"}, {"backend": "essl"}]}})";
    const auto r = test::run_process(
        {KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root", cache.string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const auto before = test::cache_entries(cache, "shaders");
    REQUIRE(before.size() >= 3);
    const auto pruned = test::run_process({KILN_CLI, "cache", "prune", "--cache-root", cache.string()},
                                          {{"KILN_CACHE_KEEP_BUILDS", "1"}});
    REQUIRE_MESSAGE(pruned.exit_code == 0, pruned.output);
    CHECK(test::cache_entries(cache, "shaders") == before);
  }

  TEST_CASE("temp files that killed writers left in any cache kind are removed by kiln cache prune") {
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    REQUIRE(cook(dir / "out", cache).exit_code == 0);
    REQUIRE(run_script(cache).exit_code == 0);
    std::vector<fs::path> planted;
    for (const char* kind : {"shaders", "jit", "textures"}) {
      const auto entries = test::cache_entries(cache, kind);
      REQUIRE_MESSAGE(!entries.empty(), kind);
      const fs::path temp = test::plant_stale_temp_file(entries.front());
      planted.push_back(temp);
    }
    const auto r = test::run_process({KILN_CLI, "cache", "prune", "--cache-root", cache.string()});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    for (const fs::path& temp : planted) {
      CAPTURE(temp);
      CHECK_FALSE(fs::exists(temp));
    }
  }

  TEST_CASE("a cache left open to others is made private by the next tool - every file and directory in it") {
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    REQUIRE(cook(dir / "out", cache).exit_code == 0);
    REQUIRE(run_script(cache, {}, one_page_script(dir.path())).exit_code == 0);
    const auto stats = [&] { return test::run_process({KILN_CLI, "cache", "stats", "--cache-root", cache.string()}); };
    // The whole tree, root included.
    open_everything(cache);
    REQUIRE(open_to_others(cache).size() > 20);
    REQUIRE(stats().exit_code == 0);
    auto left = open_to_others(cache);
    CHECK_MESSAGE(left.empty(), left.size() << " left, first " << (left.empty() ? "" : left.front().string()));
    // Everything beneath a root that is private already.
    open_everything(cache);
    fs::permissions(cache, fs::perms::owner_all, fs::perm_options::replace);
    REQUIRE(stats().exit_code == 0);
    left = open_to_others(cache);
    CHECK_MESSAGE(left.empty(), left.size() << " left, first " << (left.empty() ? "" : left.front().string()));
  }

  TEST_CASE("blobs and a kept compiler fingerprint of another user are not trusted - the blobs said once") {
    if (!can_give_files_away()) return;
    test::TempDir dir("cachedirs");
    const fs::path cache = dir / "cache";
    REQUIRE(cook(dir / "base", cache).exit_code == 0);
    // One shard of the shaders' namespace, with its blobs, given to another user.
    const auto blobs = test::cache_entries(cache, "shaders");
    REQUIRE(!blobs.empty());
    const fs::path shard = blobs.front().parent_path();
    for (const auto& e : fs::directory_iterator(shard)) REQUIRE(::lchown(e.path().c_str(), 65534, 65534) == 0);
    REQUIRE(::lchown(shard.c_str(), 65534, 65534) == 0);
    const auto second = cook(dir / "second", cache);
    CHECK_MESSAGE(second.exit_code == 0, second.output);
    CHECK(test::slurp(dir / "second" / "manifest.json") == test::slurp(dir / "base" / "manifest.json"));
    std::size_t said = 0;
    for (auto at = second.output.find("owned by another user; not trusted"); at != std::string::npos;
         at = second.output.find("owned by another user; not trusted", at + 1))
      ++said;
    CHECK_MESSAGE(said == 1, second.output);

    // A kept fingerprint says which compiled pages a run trusts: one that differs from what the
    // compiler says is noticed when it is this user's, and never read when it is another's.
    const fs::path script = one_page_script(dir.path());
    REQUIRE(run_script(cache, {}, script).exit_code == 0);
    const auto kept = test::kept_fingerprints(cache);
    REQUIRE(kept.size() == 1);
    const std::string actual = test::blob_payload(kept[0]);
    test::remove_cached_pages(cache);
    test::rewrite_blob_payload(kept[0], actual + "; planted");
    REQUIRE(::lchown(kept[0].c_str(), 65534, 65534) == 0);
    auto planted = run_script(cache, {}, script);
    CHECK_MESSAGE(planted.exit_code == 0, planted.output);
    CHECK_MESSAGE(planted.output.find("fingerprint changed") == std::string::npos, planted.output);
    // The control: the same file of this user is read (and found stale).
    REQUIRE(::lchown(kept[0].c_str(), 0, 0) == 0);
    test::rewrite_blob_payload(kept[0], actual + "; planted");
    test::remove_cached_pages(cache);
    auto own = run_script(cache, {}, script);
    CHECK_MESSAGE(own.output.find("fingerprint changed") != std::string::npos, own.output);
  }
}
