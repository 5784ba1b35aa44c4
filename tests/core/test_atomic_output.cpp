// Output files appear whole or not at all: the new content goes to a temp file renamed over the
// target, never into the target itself.

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "kiln/core/atomic_output.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

std::span<const std::byte> bytes_of(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

ino_t inode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_ino;
}

}  // namespace

TEST_SUITE("core") {
  TEST_CASE("an atomic write replaces the target by a rename - a hard link to the old file keeps the old bytes") {
    test::TempDir dir("atomic");
    const fs::path target = dir / "out.bin", alias = dir / "alias.bin";
    test::spit(target, "old content");
    fs::create_hard_link(target, alias);
    const ino_t before = inode_of(target);
    for (const Durability durability : {Durability::kFlushed, Durability::kRenamedOnly}) {
      REQUIRE(write_file_atomically(target, bytes_of("new content, longer than the old"), 0644, durability));
      CHECK(test::slurp(target) == "new content, longer than the old");
      // Written into the target in place, the alias would show the new bytes (or a torn mix).
      CHECK(test::slurp(alias) == "old content");
      CHECK(inode_of(target) != before);
    }
    // No temp file left behind.
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++files;
    CHECK(files == 2);
  }

  TEST_CASE("an output dropped before its commit leaves the old target and no temp file") {
    test::TempDir dir("atomic");
    const fs::path target = dir / "out.bin";
    test::spit(target, "old content");
    fs::path temp;
    {
      AtomicOutput out(target);
      temp = out.temp_path();
      test::spit(temp, "half written");
      CHECK(test::slurp(target) == "old content");
    }
    CHECK_FALSE(fs::exists(temp));
    CHECK(test::slurp(target) == "old content");
  }

  TEST_CASE("a process killed while it writes leaves the old file whole or the new one whole") {
    test::TempDir dir("atomic");
    const fs::path target = dir / "out.bin";
    const std::string old_content(1 << 20, 'o'), new_content(64 << 20, 'n');
    test::spit(target, old_content);
    for (int delay_ms : {0, 2, 5, 10, 20, 40}) {
      CAPTURE(delay_ms);
      const pid_t child = ::fork();
      REQUIRE(child >= 0);
      if (child == 0) {
        (void)write_file_atomically(target, bytes_of(new_content));
        ::_exit(0);
      }
      ::usleep(static_cast<useconds_t>(delay_ms) * 1000);
      ::kill(child, SIGKILL);
      int status = 0;
      ::waitpid(child, &status, 0);
      const std::string now = test::slurp(target);
      CHECK((now == old_content || now == new_content));
      test::spit(target, old_content);
    }
  }
}
