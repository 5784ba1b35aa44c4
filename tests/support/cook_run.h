#pragma once
// `kiln cook` as the cook tests run it: a real process with its own cache root, and the report it
// wrote; and where a cooked set keeps its packs.

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "temp_dir.h"

namespace kiln::test {

struct Cooked {
  RunResult run;
  nlohmann::json report;  // null when the cook wrote none
  // A figure of the report's totals ("compiled", "cache_hits", "unchanged", "variants", ...).
  int totals(const std::string& key) const { return report["totals"][key].get<int>(); }
};

// `kiln cook <project> --out <out> --report <dir>/report.json --cache-root <cache> <extra...>`.
Cooked cook(const TempDir& dir, const std::filesystem::path& project, const std::filesystem::path& out,
            const std::filesystem::path& cache, std::vector<std::string> extra = {});

// Checks (doctest) that the cooked set in `out` opens and every pack matches its manifest.
void check_cooked_set(const std::filesystem::path& out);

// Runs `argv` (a kiln command that loads the tools) and returns the shared libraries the process
// that loaded kiln-tools.so mapped, by the names they were asked for ("libcrypto.so.3"), from the
// dynamic loader's own trace (LD_DEBUG=files), written under `trace`. Checks (doctest) that the
// command succeeded and that one process loaded the tools. `env` is added to the command's.
std::set<std::string> libraries_mapped_by_tools(const std::vector<std::string>& argv,
                                                const std::filesystem::path& trace,
                                                std::map<std::string, std::string> env = {});

// The pack of `kind` ("shaders", "scripts", "textures") in the cooked set `dir`; empty if none.
std::filesystem::path pack_file(const std::filesystem::path& dir, const std::string& kind);

}  // namespace kiln::test
