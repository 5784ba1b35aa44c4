#include "test_files.h"

#include <fstream>
#include <iterator>

namespace kiln::test {
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

void flip_middle_byte(const fs::path& p) {
  const auto middle = std::streamoff(fs::file_size(p) / 2);
  std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
  char c = 0;
  f.seekg(middle);
  f.get(c);
  f.seekp(middle);
  f.put(char(c ^ 0x5a));
}

void spit_script(const fs::path& p, const std::string& body) {
  spit(p, "#!/bin/sh\n" + body + "\n");
  fs::permissions(p, fs::perms::owner_all);
}

fs::path copy_assets(const TempDir& dir, const std::string& name) {
  const fs::path project = dir / name;
  fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", project, fs::copy_options::recursive);
  return project;
}

}  // namespace kiln::test
