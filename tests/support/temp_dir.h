#pragma once
// A fresh directory per test under $TMPDIR, removed when the test passes and kept (and printed)
// when it fails, so that a failure can be looked at.

#include <filesystem>
#include <string_view>

namespace kiln::test {

class TempDir {
 public:
  explicit TempDir(std::string_view label = "test");
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::filesystem::path& p) const { return path_ / p; }

 private:
  std::filesystem::path path_;
};

}  // namespace kiln::test
