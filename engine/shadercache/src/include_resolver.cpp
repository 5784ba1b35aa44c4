#include "include_resolver.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "kiln/core/input_limits.h"
#include "kiln/shadercache/include_scan.h"
#include "kiln/core/project_paths.h"

namespace kiln::shadercache {
namespace fs = std::filesystem;

Result<std::string> read_shader_file(const fs::path& file) {
  return read_input_file(file, limits::kShaderSourceBytes, "shader source");
}

std::vector<fs::path> include_candidates(const std::string& written, const IncludeChain& includers,
                                         const std::vector<fs::path>& include_dirs) {
  // `#include "inc\common.hlsli"`, as Windows-born shader code writes it, names inc/common.hlsli
  // (glslangValidator reads it so too).
  std::string name = written;
  std::replace(name.begin(), name.end(), '\\', '/');
  std::vector<fs::path> candidates;
  const auto add = [&](const fs::path& dir) {
    fs::path candidate = (dir / name).lexically_normal();
    if (std::find(candidates.begin(), candidates.end(), candidate) == candidates.end())
      candidates.push_back(std::move(candidate));
  };
  for (auto it = includers.rbegin(); it != includers.rend(); ++it) add(it->parent_path());
  for (const fs::path& dir : include_dirs) add(dir);
  return candidates;
}

std::optional<fs::path> resolve_include(const std::string& name, const IncludeChain& includers,
                                        const IncludeRules& rules, std::string* refusal, std::set<fs::path>* probed) {
  for (const fs::path& candidate : include_candidates(name, includers, rules.dirs)) {
    if (probed) probed->insert(candidate);
    if (!input_present(candidate)) continue;
    fs::path resolved;
    if (!rules.roots.empty() && !resolves_inside(candidate, rules.roots, &resolved)) {
      if (refusal) *refusal = "leads outside the project and its include directories (to " + resolved.string() + ")";
      return std::nullopt;
    }
    return candidate;
  }
  return std::nullopt;
}

std::vector<std::string> scan_include_names(std::string_view source) {
  std::string text;
  text.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\\' && i + 1 < source.size() && source[i + 1] == '\n') {
      ++i;  // line continuation
    } else if (source.compare(i, 2, "//") == 0) {
      while (i < source.size() && source[i] != '\n') ++i;
      text += '\n';
    } else if (source.compare(i, 2, "/*") == 0) {
      const std::size_t end = source.find("*/", i + 2);
      for (std::size_t j = i; j < (end == std::string::npos ? source.size() : end); ++j)
        if (source[j] == '\n') text += '\n';
      text += ' ';
      i = end == std::string::npos ? source.size() : end + 1;
    } else {
      text += source[i];
    }
  }
  std::vector<std::string> names;
  std::istringstream lines(text);
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

bool snapshot_tree(const fs::path& file, const IncludeRules& rules, SourceSnapshot& snapshot) {
  const fs::path root = file.lexically_normal();
  auto text = read_shader_file(root);
  if (!text) {
    snapshot.unreadable = text.error().message;
    return false;
  }
  snapshot.files[root] = std::move(*text);
  // What a file's includes resolve to depends on the directories of the files above it, so a file
  // is scanned once per distinct list of those directories (few: a project has few directories).
  // Past kMaxDepth the compiler refuses the include anyway.
  constexpr std::size_t kMaxDepth = 64;
  std::set<std::pair<fs::path, std::vector<fs::path>>> scanned;
  std::vector<IncludeChain> work{{root}};
  while (!work.empty()) {
    const IncludeChain chain = std::move(work.back());
    work.pop_back();
    std::vector<fs::path> dirs;
    for (const fs::path& f : chain)
      if (std::find(dirs.begin(), dirs.end(), f.parent_path()) == dirs.end()) dirs.push_back(f.parent_path());
    if (chain.size() > kMaxDepth || !scanned.emplace(chain.back(), std::move(dirs)).second) continue;
    for (const std::string& name : scan_include_names(snapshot.files.at(chain.back()))) {
      auto found = resolve_include(name, chain, rules, nullptr, &snapshot.probed);
      if (!found) {
        snapshot.missing.push_back(name);
        continue;
      }
      if (!snapshot.files.count(*found)) {
        auto included = read_shader_file(*found);
        if (!included) {
          snapshot.missing.push_back(name);
          continue;
        }
        snapshot.files[*found] = std::move(*included);
      }
      IncludeChain next = chain;
      next.push_back(*found);
      work.push_back(std::move(next));
    }
  }
  return true;
}

}  // namespace kiln::shadercache
