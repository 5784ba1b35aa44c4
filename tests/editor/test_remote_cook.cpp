// Cooks on several "machines" (separate local caches, separate checkouts) that share one remote
// cache, a real redis-server or nginx started for the test.

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "servers.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

struct Cooked {
  test::RunResult run;
  nlohmann::json report;
};

// `kiln cook` of `project` with its own cache root; `out` empty for a shard.
std::vector<std::string> cook_argv(const fs::path& project, const fs::path& out, const fs::path& cache,
                                   const fs::path& report, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {KILN_CLI,        "cook",         project.string(), "--report",
                                   report.string(), "--cache-root", cache.string()};
  if (!out.empty()) argv.insert(argv.end(), {"--out", out.string()});
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

nlohmann::json read_report(const fs::path& report) {
  std::ifstream in(report);
  return in ? nlohmann::json::parse(in) : nlohmann::json();
}

Cooked cook(const fs::path& project, const fs::path& out, const fs::path& cache, const std::vector<std::string>& extra,
            const std::map<std::string, std::string>& env = {}) {
  const fs::path report = cache.string() + "-report.json";
  fs::remove(report);
  Cooked c{test::run_process(cook_argv(project, out, cache, report, extra), env), {}};
  c.report = read_report(report);
  return c;
}

// Every file of a cooked set, by relative path.
std::map<std::string, std::string> set_files(const fs::path& out) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(out))
    if (e.is_regular_file()) files[fs::relative(e.path(), out).string()] = test::slurp(e.path());
  return files;
}

std::size_t count_lines_with(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    n += text.substr(start, end - start).find(part) != std::string::npos;
    start = end + 1;
  }
  return n;
}

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file()) files.push_back(it->path());
  return files;
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a second machine with an empty cache compiles nothing - through redis and through http") {
    test::TempDir dir("remote-cook");
    // Two checkouts in different places, as on two machines.
    const fs::path project_a = test::copy_assets(dir, "checkout-a");
    const fs::path project_b = test::copy_assets(dir, "checkout-b");
    auto run = [&](test::TestServer& server, const std::string& name) {
      INFO(name);
      const std::vector<std::string> remote = {"--cache-remote", server.url()};
      const Cooked a = cook(project_a, dir / (name + "-out-a"), dir / (name + "-cache-a"), remote);
      REQUIRE_MESSAGE(a.run.exit_code == 0, a.run.output);
      const int variants = a.report["totals"]["variants"].get<int>();
      CHECK(a.report["totals"]["compiled"] == variants);
      // Every variant and every texture conversion, once; nothing else travels (scripts stay local).
      CHECK(a.report["cache"]["remote"]["writes"].get<int>() ==
            variants + a.report["textures"]["converted"].get<int>());

      const Cooked b = cook(project_b, dir / (name + "-out-b"), dir / (name + "-cache-b"), remote);
      REQUIRE_MESSAGE(b.run.exit_code == 0, b.run.output);
      CHECK(b.report["totals"]["compiled"] == 0);
      CHECK(b.report["totals"]["cache_hits"] == variants);
      CHECK(b.report["textures"]["converted"] == 0);
      CHECK(b.report["cache"]["remote"]["hits"] == a.report["cache"]["remote"]["writes"]);
      CHECK(b.report["cache"]["remote"]["rejected"] == 0);
      CHECK(b.report["cache"]["remote"]["errors"] == 0);
      // Script machine code is this machine's own: compiled here, never fetched.
      CHECK(b.report["scripts"]["compiled"] == b.report["scripts"]["pages"]);
      CHECK(set_files(dir / (name + "-out-b")) == set_files(dir / (name + "-out-a")));
      CHECK(b.run.output.find("remote cache") == std::string::npos);

      // kiln cache stats of the second machine counts what came from the remote.
      auto stats = test::run_process(
          {KILN_CLI, "cache", "stats", "--json", "--cache-root", (dir / (name + "-cache-b")).string()});
      REQUIRE_MESSAGE(stats.exit_code == 0, stats.output);
      const auto json = nlohmann::json::parse(stats.output);
      CHECK(json["kinds"]["shaders"]["use"]["remote"]["hits"] == variants);
      CHECK(json["kinds"]["shaders"]["use"]["remote"]["bytes_read"].get<std::uint64_t>() > 0);
      CHECK(json["kinds"]["jit"]["use"]["remote"]["hits"] == 0);
    };
    {
      test::RedisServer redis(dir / "redis");
      run(redis, "redis");
    }
    {
      test::HttpCacheServer http(dir / "http");
      run(http, "http");
      // Nothing but shader variants and texture conversions went to the server.
      for (const fs::path& file : files_under(http.storage())) {
        const std::string kind = fs::relative(file, http.storage() / "kiln").begin()->string();
        CHECK_MESSAGE((kind == "shaders" || kind == "textures"), file);
      }
    }
  }

  TEST_CASE("two shards in parallel then an assembling cook with no compile - packs byte-identical to one machine") {
    test::TempDir dir("remote-shards");
    // The generated large project in small: 96 variants over two shaders, 12 textures.
    const fs::path project = dir / "project";
    const auto made =
        test::run_process({"/usr/bin/python3", KILN_SOURCE_DIR "/bench/make_large_project.py", project.string(),
                           "--shaders", "2", "--keywords", "4", "--textures", "12", "--size", "32"});
    REQUIRE_MESSAGE(made.exit_code == 0, made.output);
    test::RedisServer redis(dir / "redis");
    const std::vector<std::string> remote = {"--cache-remote", redis.url()};

    // Shard 1 from the flag, shard 2 from a Slurm job array, at the same time, each with its own cache.
    auto flag_args = remote;
    flag_args.insert(flag_args.end(), {"--shard", "1/2"});
    test::ChildProcess one(cook_argv(project, {}, dir / "cache-1", dir / "report-1.json", flag_args));
    test::ChildProcess two(
        cook_argv(project, {}, dir / "cache-2", dir / "report-2.json", remote),
        {{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "2"}});
    const std::string out_one = one.read_all(), out_two = two.read_all();
    REQUIRE_MESSAGE(one.wait() == 0, out_one);
    REQUIRE_MESSAGE(two.wait() == 0, out_two);
    CHECK_FALSE(fs::exists(dir / "out"));  // a shard writes no packs
    const auto r1 = read_report(dir / "report-1.json"), r2 = read_report(dir / "report-2.json");
    CHECK(r1["shard"]["index"] == 1);
    CHECK(r2["shard"]["index"] == 2);
    CHECK(r2["shard"]["count"] == 2);
    CHECK(r1["shard"]["compiled"] == r1["shard"]["variants"]);
    CHECK(r2["shard"]["compiled"] == r2["shard"]["variants"]);
    CHECK(r1["shard"]["variants"].get<int>() > 0);
    CHECK(r2["shard"]["variants"].get<int>() > 0);
    CHECK(r1["shard"]["textures"].get<int>() > 0);
    CHECK(r2["shard"]["textures"].get<int>() > 0);
    CHECK(out_one.find("cook: shard 1/2:") != std::string::npos);

    // A Kubernetes indexed Job's shard 2 is the Slurm one's: all of it is in the cache now.
    const Cooked k8s = cook(project, {}, dir / "cache-2", {"--cache-remote", redis.url(), "--shard-count", "2"},
                            {{"JOB_COMPLETION_INDEX", "1"}});
    REQUIRE_MESSAGE(k8s.run.exit_code == 0, k8s.run.output);
    CHECK(k8s.report["shard"]["variants"] == r2["shard"]["variants"]);
    CHECK(k8s.report["shard"]["compiled"] == 0);

    // The assembly, on a machine with an empty cache: every variant and texture from the remote.
    const Cooked assembled = cook(project, dir / "out", dir / "cache-3", remote);
    REQUIRE_MESSAGE(assembled.run.exit_code == 0, assembled.run.output);
    const int variants = assembled.report["totals"]["variants"].get<int>();
    CHECK(r1["shard"]["variants"].get<int>() + r2["shard"]["variants"].get<int>() == variants);
    CHECK(r1["shard"]["textures"].get<int>() + r2["shard"]["textures"].get<int>() ==
          assembled.report["textures"]["files"].get<int>());
    CHECK(variants == 96);
    CHECK(assembled.report["totals"]["compiled"] == 0);
    CHECK(assembled.report["textures"]["converted"] == 0);
    const Cooked single = cook(project, dir / "single", dir / "cache-single", {});
    REQUIRE_MESSAGE(single.run.exit_code == 0, single.run.output);
    CHECK(set_files(dir / "out") == set_files(dir / "single"));

    // A shard whose machine already had its part (cooked before the remote was set) sends it, and
    // a cook with --out inside the same job array is the assembly, not a shard.
    test::RedisServer fresh(dir / "redis-fresh");
    const std::vector<std::string> fresh_remote = {"--cache-remote", fresh.url()};
    const Cooked warm = cook(project, {}, dir / "cache-single", {"--cache-remote", fresh.url(), "--shard", "1/1"});
    REQUIRE_MESSAGE(warm.run.exit_code == 0, warm.run.output);
    CHECK(warm.report["shard"]["compiled"] == 0);
    CHECK(warm.report["cache"]["remote"]["writes"].get<int>() ==
          variants + warm.report["shard"]["textures"].get<int>());
    const std::map<std::string, std::string> slurm = {
        {"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "2"}};
    const Cooked in_job = cook(project, dir / "out-in-job", dir / "cache-in-job", fresh_remote, slurm);
    REQUIRE_MESSAGE(in_job.run.exit_code == 0, in_job.run.output);
    CHECK_FALSE(in_job.report.contains("shard"));
    CHECK(in_job.report["totals"]["compiled"] == 0);
    CHECK(set_files(dir / "out-in-job") == set_files(dir / "single"));

    // Shards that cannot be.
    for (const auto& [args, env, says] :
         std::vector<std::tuple<std::vector<std::string>, std::map<std::string, std::string>, std::string>>{
             {{"--shard", "3/2"}, {}, "shard 3 of 2 does not exist"},
             {{"--shard", "0/2"}, {}, "expected i/N"},
             {{}, {{"JOB_COMPLETION_INDEX", "0"}}, "--shard-count N is needed"},
             {{"--shard-count", "2"}, {{"JOB_COMPLETION_INDEX", "2"}}, "shard 3 of 2 does not exist"},
             {{"--shard", "1/2", "--shard-count", "2"}, {}, "--shard i/N names its count"},
             {{},
              {{"SLURM_ARRAY_TASK_ID", "4"},
               {"SLURM_ARRAY_TASK_MIN", "0"},
               {"SLURM_ARRAY_TASK_STEP", "4"},
               {"SLURM_ARRAY_TASK_COUNT", "1"}},
              "shard 2 of 1 does not exist"}}) {
      const Cooked bad = cook(project, {}, dir / "cache-bad", args, env);
      CHECK(bad.run.exit_code == 2);
      CHECK_MESSAGE(bad.run.output.find(says) != std::string::npos, bad.run.output);
    }
  }

  TEST_CASE("the remote's password is never printed - kiln config and messages hide it") {
    test::TempDir dir("remote-secret");
    const std::string url = "redis://farm:s3cret@127.0.0.1:1/0";
    auto shown = test::run_process({KILN_CLI, "config", "--cache-remote", url});
    REQUIRE_MESSAGE(shown.exit_code == 0, shown.output);
    CHECK(shown.output.find("s3cret") == std::string::npos);
    CHECK(shown.output.find("redis://***@127.0.0.1:1/0") != std::string::npos);
    auto bad = test::run_process({KILN_CLI, "config", "--cache-remote", "ftp://farm:s3cret@host/x"});
    CHECK(bad.exit_code == 2);
    CHECK(bad.output.find("s3cret") == std::string::npos);
    // Nothing listens on port 1: one warning, without the password, and the cook succeeds.
    const fs::path project = test::copy_assets(dir);
    const Cooked c = cook(project, dir / "out", dir / "cache", {"--cache-remote", url});
    REQUIRE_MESSAGE(c.run.exit_code == 0, c.run.output);
    CHECK(count_lines_with(c.run.output, "remote cache") == 1);
    CHECK(c.run.output.find("s3cret") == std::string::npos);
  }

  TEST_CASE("an http remote without a loadable libcurl is off with one warning - the cook finishes locally") {
    // libcurl is loaded only when an HTTP remote is opened; one that cannot be loaded (here a
    // damaged file found first on the library path) costs the remote, not the cook.
    test::TempDir dir("remote-no-curl");
    const fs::path libs = dir / "libs";
    fs::create_directories(libs);
    std::ofstream(libs / "libcurl.so.4") << "not a library";
    const fs::path project = test::copy_assets(dir);
    test::HttpCacheServer http(dir / "http");
    const Cooked c =
        cook(project, dir / "out", dir / "cache", {"--cache-remote", http.url()}, {{"LD_LIBRARY_PATH", libs.string()}});
    REQUIRE_MESSAGE(c.run.exit_code == 0, c.run.output);
    CHECK(count_lines_with(c.run.output, "remote cache off: cannot load libcurl for the HTTP remote") == 1);
    CHECK(c.report["totals"]["compiled"] == c.report["totals"]["variants"]);
    CHECK(files_under(http.storage()).empty());
  }

  TEST_CASE("a remote that stops or stalls during a cook costs one warning - the cook finishes locally") {
    test::TempDir dir("remote-down-cook");
    const fs::path project = test::copy_assets(dir);
    const Cooked local = cook(project, dir / "local-out", dir / "local-cache", {});
    REQUIRE_MESSAGE(local.run.exit_code == 0, local.run.output);

    test::RedisServer redis(dir / "redis");
    test::HttpCacheServer http(dir / "http");
    for (const std::string how : {"stopped", "stalled"}) {
      INFO(how);
      test::TestServer& server = how == "stopped" ? static_cast<test::TestServer&>(redis) : http;
      const fs::path report = dir / (how + "-report.json");
      test::ChildProcess cook_process(cook_argv(project, dir / (how + "-out"), dir / (how + "-cache"), report,
                                                {"--cache-remote", server.url(), "--cache-remote-timeout", "300"}));
      // The project is read and the variants are about to be looked up: the server goes.
      std::string output;
      while (auto line = cook_process.read_line()) {
        output += *line + "\n";
        if (line->find(" variants (") != std::string::npos) break;
      }
      if (how == "stopped")
        server.stop();
      else
        server.pause();
      output += cook_process.read_all();
      CHECK_MESSAGE(cook_process.wait() == 0, output);
      CHECK_MESSAGE(count_lines_with(output, "remote cache") == 1, output);
      CHECK(count_lines_with(output, "unavailable") == 1);
      const auto r = read_report(report);
      // Lookups under way on other threads when the first failed count too; the warning is one.
      CHECK(r["cache"]["remote"]["errors"].get<int>() >= 1);
      CHECK_FALSE(r["cache"]["remote"]["trouble"].get<std::string>().empty());
      CHECK(r["totals"]["compiled"] == r["totals"]["variants"]);
      CHECK(set_files(dir / (how + "-out")) == set_files(dir / "local-out"));
      server.resume();
    }
  }

  TEST_CASE("a corrupted remote entry is rejected and replaced - a read-only machine writes nothing") {
    test::TempDir dir("remote-corrupt");
    const fs::path project = test::copy_assets(dir);
    test::HttpCacheServer http(dir / "http");
    const std::vector<std::string> remote = {"--cache-remote", http.url()};

    // Read-only against an empty server: everything built locally, nothing sent.
    const Cooked reader = cook(project, dir / "out-ro", dir / "cache-ro",
                               {"--cache-remote", http.url(), "--cache-remote-read-only", "true"});
    REQUIRE_MESSAGE(reader.run.exit_code == 0, reader.run.output);
    CHECK(reader.report["cache"]["remote"]["writes"] == 0);
    CHECK(reader.report["cache"]["remote"]["read_only"] == true);
    CHECK(files_under(http.storage()).empty());

    const Cooked a = cook(project, dir / "out-a", dir / "cache-a", remote);
    REQUIRE_MESSAGE(a.run.exit_code == 0, a.run.output);
    std::vector<fs::path> variants;
    for (const fs::path& file : files_under(http.storage() / "kiln" / "shaders")) variants.push_back(file);
    REQUIRE_FALSE(variants.empty());
    std::sort(variants.begin(), variants.end());
    const fs::path damaged = variants.front();
    const std::string good = test::slurp(damaged);
    std::string flipped = good;
    flipped[flipped.size() / 2] ^= 0x10;
    test::spit(damaged, flipped);

    const Cooked b = cook(project, dir / "out-b", dir / "cache-b", remote);
    REQUIRE_MESSAGE(b.run.exit_code == 0, b.run.output);
    CHECK(b.report["cache"]["remote"]["rejected"] == 1);
    CHECK(b.report["totals"]["compiled"] == 1);  // the damaged one, and only it
    CHECK(test::slurp(damaged) == good);         // replaced by the rebuilt entry
    CHECK(set_files(dir / "out-b") == set_files(dir / "out-a"));

    // A read-only machine with an empty cache uses what the others made.
    const Cooked late = cook(project, dir / "out-late", dir / "cache-late",
                             {"--cache-remote", http.url(), "--cache-remote-read-only", "true"});
    REQUIRE_MESSAGE(late.run.exit_code == 0, late.run.output);
    CHECK(late.report["totals"]["compiled"] == 0);
    CHECK(late.report["cache"]["remote"]["writes"] == 0);
  }

  TEST_CASE("a farm key keeps the remote to the farm - another key takes nothing - forged entries are never used") {
    test::TempDir dir("remote-keys");
    const fs::path project = test::copy_assets(dir);
    test::HttpCacheServer http(dir / "http");
    for (const char* name : {"farm.key", "other.key", "new.key"})
      REQUIRE(test::run_process({KILN_CLI, "key", "generate", "--remote", (dir / name).string()}).exit_code == 0);
    const auto keyed = [&](std::vector<std::string> keys) {
      std::vector<std::string> args = {"--cache-remote", http.url()};
      for (const auto& key : keys) args.insert(args.end(), {"--cache-remote-key", (dir / key).string()});
      return args;
    };

    const Cooked a = cook(project, dir / "out-a", dir / "cache-a", keyed({"farm.key"}));
    REQUIRE_MESSAGE(a.run.exit_code == 0, a.run.output);
    const int variants = a.report["totals"]["variants"].get<int>();
    const int sent = a.report["cache"]["remote"]["writes"].get<int>();
    REQUIRE(sent == variants + a.report["textures"]["converted"].get<int>());

    // Another farm's key: every entry is there and none is taken. (Read-only: a machine that may write
    // would replace the entries with its own, as it replaces any entry it cannot use.)
    std::vector<std::string> other_args = keyed({"other.key"});
    other_args.insert(other_args.end(), {"--cache-remote-read-only", "true"});
    const Cooked other = cook(project, dir / "out-other", dir / "cache-other", other_args);
    REQUIRE_MESSAGE(other.run.exit_code == 0, other.run.output);
    CHECK(other.report["totals"]["compiled"] == variants);
    CHECK(other.report["cache"]["remote"]["hits"] == 0);
    CHECK(other.report["cache"]["remote"]["untrusted"] == sent);
    auto stats =
        test::run_process({KILN_CLI, "cache", "stats", "--json", "--cache-root", (dir / "cache-other").string()});
    REQUIRE_MESSAGE(stats.exit_code == 0, stats.output);
    CHECK(nlohmann::json::parse(stats.output)["kinds"]["shaders"]["use"]["remote"]["untrusted"] == variants);
    stats = test::run_process({KILN_CLI, "cache", "stats", "--cache-root", (dir / "cache-other").string()});
    CHECK_MESSAGE(stats.output.find(std::to_string(variants) + " untrusted") != std::string::npos, stats.output);

    // The farm's key, an empty cache: nothing compiled. With a new key first (rotation), the old one
    // still verifies.
    for (const std::vector<std::string>& keys :
         {std::vector<std::string>{"farm.key"}, std::vector<std::string>{"new.key", "farm.key"}}) {
      const std::string name = "cache-farm" + std::to_string(keys.size());
      const Cooked farm = cook(project, dir / ("out-" + name), dir / name, keyed(keys));
      REQUIRE_MESSAGE(farm.run.exit_code == 0, farm.run.output);
      CHECK(farm.report["totals"]["compiled"] == 0);
      CHECK(farm.report["textures"]["converted"] == 0);
      CHECK(farm.report["cache"]["remote"]["untrusted"] == 0);
      CHECK(set_files(dir / ("out-" + name)) == set_files(dir / "out-a"));
    }

    // Forged on the server, each with valid checksums: an entry without its tag, and one copied under
    // another entry's name (its tag is for its own name).
    std::vector<fs::path> entries = files_under(http.storage() / "kiln" / "shaders");
    std::sort(entries.begin(), entries.end());
    REQUIRE(entries.size() >= 3);
    const std::string untagged = test::slurp(entries[0]);
    test::spit(entries[0], untagged.substr(0, untagged.size() - 32));
    test::spit(entries[1], test::slurp(entries[2]));
    const Cooked forged = cook(project, dir / "out-forged", dir / "cache-forged", keyed({"farm.key"}));
    REQUIRE_MESSAGE(forged.run.exit_code == 0, forged.run.output);
    CHECK(forged.report["cache"]["remote"]["untrusted"] == 2);
    CHECK(forged.report["totals"]["compiled"] == 2);  // the forged two, and only they
    CHECK(set_files(dir / "out-forged") == set_files(dir / "out-a"));
    // Neither key nor tag is ever printed.
    for (const char* key : {"farm.key", "other.key"}) {
      const std::string bytes = test::slurp(dir / key);
      std::string hex;
      for (unsigned char c : bytes) hex += "0123456789abcdef"[c >> 4], hex += "0123456789abcdef"[c & 15];
      for (const Cooked* run : {&a, &other, &forged}) {
        CHECK(run->run.output.find(hex.substr(0, 16)) == std::string::npos);
        CHECK(run->report.dump().find(hex.substr(0, 16)) == std::string::npos);
      }
    }
    // A machine without the key cannot use the keyed entries either.
    const Cooked plain = cook(project, dir / "out-plain", dir / "cache-plain",
                              {"--cache-remote", http.url(), "--cache-remote-read-only", "true"});
    REQUIRE_MESSAGE(plain.run.exit_code == 0, plain.run.output);
    CHECK(plain.report["totals"]["compiled"] == variants);
    // A key file others may read turns the remote off, said once; nothing is sent unkeyed.
    ::chmod((dir / "other.key").c_str(), 0644);
    const Cooked loose = cook(project, dir / "out-loose", dir / "cache-loose", keyed({"other.key"}));
    REQUIRE_MESSAGE(loose.run.exit_code == 0, loose.run.output);
    CHECK(count_lines_with(loose.run.output, "remote cache off: ") == 1);
    CHECK(loose.run.output.find("others may read it") != std::string::npos);
    CHECK(loose.report["cache"]["remote"].is_null());
  }
}
