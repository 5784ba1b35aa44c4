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
