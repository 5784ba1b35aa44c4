#pragma once
// A running `kiln editor --json` and its events, and the ways editors save a file.

#include <filesystem>
#include <fstream>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "child_process.h"
#include "temp_dir.h"
#include "test_files.h"

namespace kiln::test {

inline void write_in_place(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::trunc) << text;
}
inline void write_by_rename(const std::filesystem::path& p, const std::string& text) {
  const std::filesystem::path temp = p.parent_path() / ("." + p.filename().string() + ".swp-save");
  std::ofstream(temp, std::ios::trunc) << text;
  std::filesystem::rename(temp, p);
}
inline void write_by_delete_and_create(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::remove(p);
  std::ofstream(p, std::ios::trunc) << text;
}

struct EditorProcess {
  ChildProcess process;
  explicit EditorProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {})
      : process(argv, env) {}
  // The next JSON event, or nothing when none comes within `timeout`.
  std::optional<nlohmann::json> poll(std::chrono::milliseconds timeout) {
    for (;;) {
      auto line = process.read_line(timeout);
      if (!line) return std::nullopt;
      if (!line->empty() && line->front() == '{') return nlohmann::json::parse(*line);
      MESSAGE("editor: " << *line);  // anything not JSON is a diagnostic for the log
    }
  }
  nlohmann::json next() {
    auto event = poll(std::chrono::seconds(30));
    REQUIRE_MESSAGE(event, "the editor printed no event in 30 s");
    return *event;
  }
  // Every event until the editor has been quiet for `quiet`.
  std::vector<nlohmann::json> until_quiet(std::chrono::milliseconds quiet = std::chrono::milliseconds(2000)) {
    std::vector<nlohmann::json> events;
    while (auto e = poll(quiet)) events.push_back(std::move(*e));
    return events;
  }
};

// A private copy of the sample project and the `kiln editor --json` to start on it, with its own
// cache root beside it.
struct EditorProject {
  explicit EditorProject(std::string_view label) : dir(label), root(copy_assets(dir)) {}
  TempDir dir;
  std::filesystem::path root;
  EditorProcess start(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> argv = {KILN_CLI, "editor",       root.string(),
                                     "--json", "--cache-root", (dir / "cache").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return EditorProcess(argv);
  }
};

}  // namespace kiln::test
