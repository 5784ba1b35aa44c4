#include <doctest/doctest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "temp_dir.h"

using namespace kiln;

TEST_SUITE("editor") {

TEST_CASE("kiln config --json resolves flag over env over file - as the real process") {
  test::TempDir dir("cli");
  std::ofstream(dir / "kiln.json") << R"({"cache": {"root": "c", "keep_builds": 7}, "jobs": 2})";
  auto r = test::run_process({KILN_CLI, "config", "--json", "--config", (dir / "kiln.json").string(), "--jobs", "5"},
                             {{"KILN_CACHE_KEEP_BUILDS", "8"}, {"KILN_JOBS", "3"}});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  auto j = nlohmann::json::parse(r.output);
  CHECK(j["settings"]["jobs"]["value"] == 5);
  CHECK(j["settings"]["jobs"]["origin"] == "flag --jobs");
  CHECK(j["settings"]["cache.keep_builds"]["value"] == 8);
  CHECK(j["settings"]["cache.root"]["value"] == (dir / "c").string());
  CHECK(j["settings"]["cache.root"]["origin"] == "file");
}

TEST_CASE("kiln reports bad configuration and usage with exit code 2") {
  test::TempDir dir("cli");
  std::ofstream(dir / "kiln.json") << R"({"jobs": "many"})";
  auto r = test::run_process({KILN_CLI, "info", "--config", (dir / "kiln.json").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("kiln.json: /jobs: expected a whole number") != std::string::npos);
  CHECK(test::run_process({KILN_CLI, "info", "--no-such-flag"}).exit_code == 2);
  CHECK(test::run_process({KILN_CLI, "frobnicate"}).exit_code == 2);
}

TEST_CASE("kiln cache verify and prune run on the configured root") {
  test::TempDir dir("cli");
  auto r = test::run_process({KILN_CLI, "cache", "verify", "--json", "--cache-root", (dir / "cache").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  auto j = nlohmann::json::parse(r.output);
  CHECK(j["blobs"] == 0);
  CHECK(j["corrupt"] == 0);
  r = test::run_process({KILN_CLI, "cache", "prune", "--cache-root", (dir / "cache").string()});
  CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output.find("prune ") == 0);
}
}
