#pragma once
// How `#include "name"` is found — the one rule shared by the compiler (glslang's includer) and the
// content key, and glslangValidator's: relative to the including file first, then to each file that
// included it, innermost first (so a header finds its includer's neighbours), then each include
// directory in order. `\` in a name is a directory separator.
//
// A build reads every file once into a SourceSnapshot, hashes the snapshot for the content key and
// compiles from the snapshot, so an edit during a compile can never pair one text's key with
// another text's output.

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::shadercache {

// The files an include is read from: the stage file first, the including file last.
using IncludeChain = std::vector<std::filesystem::path>;

// Where `name` may be, in the order tried.
std::vector<std::filesystem::path> include_candidates(const std::string& name, const IncludeChain& includers,
                                                      const std::vector<std::filesystem::path>& include_dirs);

// Where includes may be found and where they may lead.
struct IncludeRules {
  std::vector<std::filesystem::path> dirs;   // searched after the including file's directory
  std::vector<std::filesystem::path> roots;  // canonical; empty: anywhere
};

// The first candidate that is a file. A file outside the roots ends the search: `refusal` says
// where it leads and nothing is returned. `probed` (if given) collects every candidate path looked
// at, found or not: creating one of them later can change what the include means.
std::optional<std::filesystem::path> resolve_include(const std::string& name, const IncludeChain& includers,
                                                     const IncludeRules& rules, std::string* refusal = nullptr,
                                                     std::set<std::filesystem::path>* probed = nullptr);

struct SourceSnapshot {
  std::map<std::filesystem::path, std::string> files;  // absolute, normalised -> bytes
  std::set<std::filesystem::path> probed;
  std::vector<std::string> missing;  // include names that resolved to nothing, or outside the roots
  std::string unreadable;            // why snapshot_tree() could not read the file itself
};

// Reads `file` and, transitively, every file it may include whatever the defines (a conservative
// superset: an include behind an #ifdef counts too) into `snapshot`. False if `file` is unreadable.
bool snapshot_tree(const std::filesystem::path& file, const IncludeRules& rules, SourceSnapshot& snapshot);

// A stage or include file: a regular file within limits::kShaderSourceBytes.
Result<std::string> read_shader_file(const std::filesystem::path& file);

}  // namespace kiln::shadercache
