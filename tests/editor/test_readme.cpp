// The README's walk-through ("Your first project") run as written: every ```sh block of the
// section in order, in one bash process in a temp directory, with the built kiln and kiln-player on
// the PATH. What it prints must be what the section's ```text block shows, so the section cannot go
// stale.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>

#include "child_process.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// The bodies of the ```<language> blocks of `section`, in order.
std::vector<std::string> blocks(const std::string& section, const std::string& language) {
  std::vector<std::string> out;
  const std::string open = "```" + language + "\n";
  for (std::size_t at = 0; (at = section.find(open, at)) != std::string::npos;) {
    at += open.size();
    const std::size_t close = section.find("\n```", at);
    REQUIRE(close != std::string::npos);
    out.push_back(section.substr(at, close - at) + "\n");
    at = close + 4;
  }
  return out;
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("the README's first project runs as written - and prints what the README shows") {
    const std::string readme = test::slurp(fs::path(KILN_SOURCE_DIR) / "README.md");
    const std::size_t begin = readme.find("\n## Your first project\n");
    REQUIRE(begin != std::string::npos);
    const std::string section = readme.substr(begin, readme.find("\n## ", begin + 1) - begin);

    test::TempDir dir("readme");
    std::string script = "cd '" + dir.path().string() + "'\n";
    for (const auto& block : blocks(section, "sh")) script += block;
    REQUIRE(script.find("kiln cook") != std::string::npos);
    test::spit(dir / "walkthrough.sh", script);
    const std::string path = fs::path(KILN_CLI).parent_path().string() + ":" +
                             fs::path(KILN_PLAYER).parent_path().string() + ":" + std::getenv("PATH");
    auto r = test::run_process({"/bin/bash", "-euo", "pipefail", (dir / "walkthrough.sh").string()},
                               {{"PATH", path}, {"KILN_CACHE_ROOT", (dir / "cache").string()}});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);

    // Every line the README shows, in order; a timing ("0.40 s") is the machine's own, so the parts
    // around it are found in order.
    const auto shown = blocks(section, "text");
    REQUIRE(shown.size() == 1);
    std::istringstream lines(shown.front());
    const std::regex timing(R"([0-9]+\.[0-9]+ s)");
    std::size_t from = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line == "...") continue;
      CAPTURE(line);
      std::sregex_token_iterator part(line.begin(), line.end(), timing, -1), end;
      for (; part != end; ++part) {
        const std::string text = *part;
        if (text.empty()) continue;
        const std::size_t at = r.output.find(text, from);
        CHECK_MESSAGE(at != std::string::npos, r.output);
        if (at != std::string::npos) from = at + text.size();
      }
    }

    // The script prints what the reference Lua prints.
    auto lua = test::run_process({"/usr/bin/lua5.1", (dir / "mygame/scripts/hello.lua").string()});
    REQUIRE(lua.exit_code == 0);
    CHECK(r.output.find("player: scripts/hello.lua\n" + lua.output) != std::string::npos);
  }
}
