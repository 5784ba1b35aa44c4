#include "cook_run.h"

#include <doctest/doctest.h>

#include <fstream>

#include "kiln/runtime/cooked_set.h"

namespace kiln::test {
namespace fs = std::filesystem;

void check_cooked_set(const fs::path& out) {
  auto set = runtime::CookedSet::open(out);
  REQUIRE_MESSAGE(set, set.error().message);
  auto checked = (*set)->check();
  CHECK_MESSAGE(checked, (checked ? "" : checked.error().message));
}

std::set<std::string> libraries_mapped_by_tools(const std::vector<std::string>& argv, const fs::path& trace,
                                                std::map<std::string, std::string> env) {
  fs::create_directories(trace);
  env["LD_DEBUG"] = "files";
  env["LD_DEBUG_OUTPUT"] = (trace / "ld").string();
  const auto run = run_process(argv, env);
  REQUIRE_MESSAGE(run.exit_code == 0, run.output);
  std::set<std::string> mapped;
  int tools_processes = 0;
  for (const auto& file : fs::directory_iterator(trace)) {
    std::ifstream in(file.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("kiln-tools.so") == std::string::npos) continue;
    ++tools_processes;
    // "file=libcrypto.so.3 [0];  dynamically loaded by ...": one line per library mapped.
    for (std::size_t at = 0; (at = text.find("file=", at)) != std::string::npos;) {
      at += 5;
      mapped.insert(text.substr(at, text.find_first_of(" \n", at) - at));
    }
  }
  CHECK(tools_processes == 1);
  return mapped;
}

Cooked cook(const TempDir& dir, const fs::path& project, const fs::path& out, const fs::path& cache,
            std::vector<std::string> extra) {
  const fs::path report = dir / "report.json";
  fs::remove(report);
  std::vector<std::string> argv = {KILN_CLI,   "cook",          project.string(), "--out",       out.string(),
                                   "--report", report.string(), "--cache-root",   cache.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  Cooked c{run_process(argv), {}};
  std::ifstream in(report);
  if (in) c.report = nlohmann::json::parse(in);
  return c;
}

fs::path pack_file(const fs::path& dir, const std::string& kind) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(kind + ".", 0) == 0 && e.path().extension() == ".pack") return e.path();
  }
  return {};
}

}  // namespace kiln::test
