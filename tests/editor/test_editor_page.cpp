// The editor's page through the real `kiln editor --serve`: its security over plain HTTP, and the
// page itself in a real browser (headless chromium through chromedriver and Selenium), both driven
// by tests/browser/editor_page.py, which says what failed. The browser case keeps its screenshots
// in the build directory (tests/screenshots).

#include <doctest/doctest.h>

#include <filesystem>

#include "child_process.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// Debian's Python, where python3-selenium is.
constexpr const char* kPython = "/usr/bin/python3";

int run_page_script(const std::vector<std::string>& args) {
  test::TempDir dir("editor-page");
  const fs::path project = test::copy_assets(dir);
  std::vector<std::string> argv = {kPython,          std::string(KILN_SOURCE_DIR) + "/tests/browser/editor_page.py",
                                   args[0],          KILN_CLI,
                                   project.string(), (dir / "cache").string()};
  argv.insert(argv.end(), args.begin() + 1, args.end());
  test::ChildProcess script(argv);
  for (auto line = script.read_line(std::chrono::seconds(300)); line;
       line = script.read_line(std::chrono::seconds(300)))
    MESSAGE(*line);
  return script.wait();
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE(
      "kiln editor --serve refuses requests without the token - from a foreign Host or Origin - and writes "
      "outside materials/") {
    CHECK(run_page_script({"security"}) == 0);
  }

  TEST_CASE(
      "the editor's page in a real browser shows every preview - a shader error at file:line - and a "
      "slider rewrites the material and its pixels") {
    CHECK(run_page_script({"browser", std::string(KILN_BINARY_DIR) + "/tests/screenshots"}) == 0);
  }
}
