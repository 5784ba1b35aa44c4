#include "kiln/core/program_files.h"

#include <unistd.h>

namespace kiln {
namespace fs = std::filesystem;

fs::path program_directory() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return self.parent_path();
}

fs::path find_program_file(std::string_view name, bool executable) {
  const fs::path dir = program_directory();
  if (dir.empty()) return {};
  for (const fs::path& candidate : {dir / name, dir.parent_path() / "lib" / "kiln" / name})
    if (::access(candidate.c_str(), executable ? X_OK : R_OK) == 0) return candidate;
  return {};
}

}  // namespace kiln
