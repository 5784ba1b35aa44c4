#pragma once
// How `#include "name"` is found — the one rule shared by the compiler (glslang's includer) and the
// content key (which must hash exactly the files a compile may read): relative to the including
// file first, then each include directory in order.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kiln::shadercache {

std::optional<std::filesystem::path> resolve_include(const std::string& name, const std::filesystem::path& includer,
                                                     const std::vector<std::filesystem::path>& include_dirs);

// Every file that `file` may include, transitively, whatever the defines: a conservative superset
// for the content key (an include behind an #ifdef still counts). Unresolvable names are listed in
// `missing` — the compile will report them properly.
struct IncludeScan {
  std::vector<std::filesystem::path> files;  // first-seen order, without `file` itself
  std::vector<std::string> missing;
};
IncludeScan scan_includes(const std::filesystem::path& file, const std::vector<std::filesystem::path>& include_dirs);

bool read_text_file(const std::filesystem::path& file, std::string& out);

}  // namespace kiln::shadercache
