#include "include_resolver.h"

#include <fstream>
#include <set>
#include <sstream>

namespace kiln::shadercache {
namespace fs = std::filesystem;

bool read_text_file(const fs::path& file, std::string& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  out = buffer.str();
  return true;
}

std::optional<fs::path> resolve_include(const std::string& name, const fs::path& includer,
                                        const std::vector<fs::path>& include_dirs) {
  std::error_code ec;
  const fs::path relative = (includer.parent_path() / name).lexically_normal();
  if (fs::is_regular_file(relative, ec)) return relative;
  for (const fs::path& dir : include_dirs) {
    const fs::path candidate = (dir / name).lexically_normal();
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

namespace {

// The names of the `#include "x"` / `#include <x>` lines of a source, in order.
std::vector<std::string> include_names(const std::string& source) {
  std::vector<std::string> names;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0) continue;
    i = line.find_first_of("\"<", i + 7);
    if (i == std::string::npos) continue;
    const char close = line[i] == '"' ? '"' : '>';
    const std::size_t end = line.find(close, i + 1);
    if (end != std::string::npos) names.push_back(line.substr(i + 1, end - i - 1));
  }
  return names;
}

}  // namespace

IncludeScan scan_includes(const fs::path& file, const std::vector<fs::path>& include_dirs) {
  IncludeScan scan;
  std::set<fs::path> seen{file.lexically_normal()};
  std::vector<fs::path> work{file};
  while (!work.empty()) {
    const fs::path current = work.back();
    work.pop_back();
    std::string source;
    if (!read_text_file(current, source)) continue;
    for (const std::string& name : include_names(source)) {
      auto found = resolve_include(name, current, include_dirs);
      if (!found) {
        scan.missing.push_back(name);
        continue;
      }
      if (!seen.insert(*found).second) continue;
      scan.files.push_back(*found);
      work.push_back(*found);
    }
  }
  return scan;
}

}  // namespace kiln::shadercache
