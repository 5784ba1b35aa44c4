// Every input goes through one check before it is read: a regular file (a FIFO or a directory
// could hang a reader or never end) of at most the limit for its kind; and every path a project
// names stays inside the project.

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "kiln/core/input_limits.h"
#include "kiln/core/project_paths.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

TEST_SUITE("core") {
  TEST_CASE("an input over its limit is refused naming the file - the size and the limit - and one at it is read") {
    test::TempDir dir("inputs");
    const fs::path file = dir / "big.lua";
    std::ofstream(file, std::ios::binary) << std::string(2048, 'x');
    auto over = read_input_file(file, 1024, "script");
    REQUIRE_FALSE(over);
    CHECK(over.error().message == file.string() + ": 2 KiB, more than the 1 KiB limit for a script");
    CHECK_FALSE(read_input_bytes(file, 2047, "script"));
    CHECK_FALSE(check_input_file(file, 2047, "script"));
    auto at = read_input_file(file, 2048, "script");
    REQUIRE_MESSAGE(at, at.error().message);
    CHECK(*at == std::string(2048, 'x'));
    auto bytes = read_input_bytes(file, 2048, "script");
    REQUIRE(bytes);
    CHECK(bytes->size() == 2048);
  }

  TEST_CASE("a FIFO or a directory where an input belongs is refused by name - nothing waits for a writer") {
    test::TempDir dir("inputs");
    const fs::path fifo = dir / "pipe.json";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    for (const auto& input : {std::pair{fifo, std::string("a device, FIFO or socket")},
                              std::pair{dir.path(), std::string("a directory")}}) {
      const fs::path& path = input.first;
      const std::string& kind = input.second;
      CAPTURE(path);
      auto read = read_input_file(path, 1 << 20, "material");
      REQUIRE_FALSE(read);
      CHECK(read.error().message ==
            path.string() + ": not a regular file (" + kind + "); a material is read from a file");
      CHECK_FALSE(read_input_bytes(path, 1 << 20, "material"));
      CHECK_FALSE(check_input_file(path, 1 << 20, "material"));
      CHECK(input_present(path));
    }
    CHECK_FALSE(input_present(dir / "missing.json"));
  }

  TEST_CASE("a file holding more bytes than its size said is refused as changed while read") {
    // A /proc file says it is empty and holds lines: as a file that grew after it was measured.
    const fs::path file = "/proc/self/status";
    const std::string why = file.string() + ": changed while being read; read it again";
    auto text = read_input_file(file, 1 << 20, "material");
    REQUIRE_FALSE(text);
    CHECK(text.error().message == why);
    auto bytes = read_input_bytes(file, 1 << 20, "material");
    REQUIRE_FALSE(bytes);
    CHECK(bytes.error().message == why);
    // One that ends where its size says is read whole, also when empty.
    test::TempDir dir("inputs");
    std::ofstream(dir / "empty.json").flush();
    std::ofstream(dir / "one.json") << "1";
    auto empty = read_input_file(dir / "empty.json", 16, "material");
    REQUIRE(empty);
    CHECK(empty->empty());
    auto one = read_input_file(dir / "one.json", 16, "material");
    REQUIRE(one);
    CHECK(*one == "1");
    auto one_bytes = read_input_bytes(dir / "one.json", 16, "material");
    REQUIRE(one_bytes);
    CHECK(one_bytes->size() == 1);
  }

  TEST_CASE("a path a project names is relative and stays inside the project") {
    auto normal = project_relative_name("textures/./brick/../brick.png");
    REQUIRE(normal);
    CHECK(*normal == "textures/brick.png");
    for (const char* outside : {"../secret.png", "textures/../../secret.png", "a/b/../../../c", "..", "."}) {
      CAPTURE(outside);
      auto refused = project_relative_name(outside);
      REQUIRE_FALSE(refused);
      CHECK(refused.error().message.find("leaves the project") != std::string::npos);
    }
    auto absolute = project_relative_name("/etc/passwd");
    REQUIRE_FALSE(absolute);
    CHECK(absolute.error().message.find("is an absolute path") != std::string::npos);
    CHECK_FALSE(project_relative_name(""));
  }

  TEST_CASE("a name joined to a normal root reads as the lexically normal path - whatever the name holds") {
    for (const char* base : {"/", "/tmp/p", "p", "p/", "../p", ".", "", "/a/b/"}) {
      const std::string normal_base = std::filesystem::path(base).lexically_normal().string();
      for (const char* rel : {"materials/m.json", "m.json", "a/./b", "a/../b", "../b", "a//b", "a/", ".", "..", "",
                              "/abs/x", "a/b/..", "./a", ".hidden/x", "a..b/c."}) {
        CAPTURE(base);
        CAPTURE(rel);
        CHECK(normal_join(normal_base, rel) == (std::filesystem::path(normal_base) / rel).lexically_normal().string());
      }
    }
    CHECK(plain_relative("shaders/lit"));
    CHECK(plain_relative("a..b/.c"));
    for (const char* not_plain : {"", "/a", "a//b", "a/./b", "a/../b", "a/", ".", "..", "./a"}) {
      CAPTURE(not_plain);
      CHECK_FALSE(plain_relative(not_plain));
    }
  }

  TEST_CASE("a root contains what lies below it - not a sibling whose name starts with the root's") {
    test::TempDir dir("inputs");
    fs::create_directories(dir / "proj" / "shaders");
    fs::create_directories(dir / "project2" / "shaders");
    std::ofstream(dir / "proj" / "shaders" / "a.glsl") << "//\n";
    std::ofstream(dir / "project2" / "shaders" / "b.glsl") << "//\n";
    const auto roots = canonical_roots({dir / "proj"});
    CHECK(resolves_inside(dir / "proj" / "shaders" / "a.glsl", roots));
    CHECK_FALSE(resolves_inside(dir / "project2" / "shaders" / "b.glsl", roots));
    CHECK_FALSE(resolves_inside(dir / "proj2", roots));
    // Through a symbolic link inside the root to the sibling: where it leads is what counts.
    fs::create_directory_symlink(dir / "project2" / "shaders", dir / "proj" / "linked");
    fs::path resolved;
    CHECK_FALSE(resolves_inside(dir / "proj" / "linked" / "b.glsl", roots, &resolved));
    CHECK(resolved == fs::canonical(dir / "project2" / "shaders" / "b.glsl"));
  }

  TEST_CASE("where a path leads is what weakly_canonical says - through chained or relative links and to nothing") {
    test::TempDir dir("inputs");
    fs::create_directories(dir / "real" / "deep");
    std::ofstream(dir / "real" / "deep" / "f.glsl") << "//\n";
    fs::create_directory_symlink(dir / "real", dir / "to_real");                // absolute
    fs::create_directory_symlink("to_real/deep", dir / "to_deep");              // relative, through another link
    fs::create_symlink("deep/f.glsl", dir / "real" / "file_link");              // a file's link
    fs::create_symlink(dir / "nowhere" / "x.glsl", dir / "real" / "dangling");  // to nothing
    const auto roots = canonical_roots({dir.path()});
    for (const fs::path& path :
         {dir / "real" / "deep" / "f.glsl", dir / "to_deep" / "f.glsl",
          dir / "to_real" / "deep" / ".." / "deep" / "f.glsl", dir / "to_real" / "file_link", dir / "real" / "dangling",
          dir / "to_deep" / "missing" / "y.glsl", dir / "to_deep", dir / "to_real" / "deep" / ""}) {
      CAPTURE(path);
      fs::path resolved;
      resolves_inside(path, roots, &resolved);
      CHECK(resolved == fs::weakly_canonical(path));
    }
  }

  TEST_CASE("a project's files are listed sorted - whatever order the directory keeps them in") {
    test::TempDir dir("inputs");
    fs::create_directories(dir / "materials" / "sub");
    std::vector<std::string> expected;
    std::mt19937 random(7);
    for (int i = 0; i < 40; ++i) {
      const std::string name = std::to_string(random() % 100000) + "_" + std::to_string(i) + ".json";
      const std::string rel = (i % 4 == 0 ? "materials/sub/" : "materials/") + name;
      std::ofstream(dir / rel) << "{}";
      expected.push_back(rel);
    }
    std::ofstream(dir / "materials" / "notes.txt") << "not listed";
    std::sort(expected.begin(), expected.end());
    CHECK(list_project_files(dir.path(), "materials", ".json") == expected);
  }

  TEST_CASE("a size is told in whole units when it is one - and never rounds to a limit it is past") {
    CHECK(describe_bytes(17) == "17 bytes");
    CHECK(describe_bytes(1024) == "1 KiB");
    CHECK(describe_bytes(1536) == "1.5 KiB");
    CHECK(describe_bytes(2047) == "2.0 KiB (2047 bytes)");
    CHECK(describe_bytes((std::uint64_t{1} << 20) + 1) == "1.0 MiB (1048577 bytes)");
    CHECK(describe_bytes(std::uint64_t{9} << 20) == "9 MiB");
    CHECK(describe_bytes(std::uint64_t{3} << 30) == "3 GiB");
    CHECK(describe_bytes(14'400'000'000ull) == "13.4 GiB");
  }
}
