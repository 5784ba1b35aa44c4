#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/jit/code_arena.h"

using kiln::jit::CodeArena;

namespace {

// `mov eax, value; ret`, padded with int3 to `size` bytes.
std::vector<std::uint8_t> returns(std::uint32_t value, std::size_t size = 6) {
  std::vector<std::uint8_t> code(std::max<std::size_t>(size, 6), 0xcc);
  code[0] = 0xb8;
  for (int i = 0; i < 4; ++i) code[1 + i] = std::uint8_t(value >> (8 * i));
  code[5] = 0xc3;
  return code;
}

// What runs the code: a call on x86-64, a byte compare elsewhere.
bool holds(const std::uint8_t* at, const std::vector<std::uint8_t>& code, std::uint32_t value) {
#if defined(__x86_64__)
  (void)code;
  return reinterpret_cast<std::uint32_t (*)()>(const_cast<std::uint8_t*>(at))() == value;
#else
  (void)value;
  return std::equal(code.begin(), code.end(), at);
#endif
}

// The permissions ("r-xs", "rw-p", ...) of the mapping that holds `at`, from /proc/self/maps.
std::string permissions_at(const void* at) {
  std::ifstream maps("/proc/self/maps");
  const auto address = reinterpret_cast<std::uintptr_t>(at);
  for (std::string line; std::getline(maps, line);) {
    unsigned long long begin = 0, end = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %4s", &begin, &end, perms) == 3 && address >= begin && address < end)
      return perms;
  }
  return "";
}

void check_installs(CodeArena::Layout layout) {
  CodeArena arena(layout);
  std::vector<std::pair<const std::uint8_t*, std::uint32_t>> installed;
  // 300-byte pieces past a chunk's 256 KiB, and one piece larger than a chunk.
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const std::size_t size = i == 500 ? 300 * 1024 : 300;
    auto at = arena.install(returns(1000 + i, size));
    REQUIRE(at);
    installed.emplace_back(*at, 1000 + i);
  }
  // Debian's kernel maps executable shared memory: the packed layout must not have fallen back here.
  CHECK(arena.layout() == layout);
  for (const auto& [at, value] : installed) {
    CHECK(holds(at, returns(value), value));
    const std::string perms = permissions_at(at);
    CHECK(perms.size() == 4);
    CHECK(perms.find('x') != std::string::npos);
    CHECK(perms.find('w') == std::string::npos);
  }
}

}  // namespace

TEST_SUITE("jit") {
  TEST_CASE("installed code runs from memory that is executable and never writable") {
    SUBCASE("packed") { check_installs(CodeArena::Layout::kPacked); }
    SUBCASE("a page each") { check_installs(CodeArena::Layout::kPerPage); }
  }

  TEST_CASE("packed code shares pages at its alignment and a page each starts a page") {
    CodeArena packed;
    auto a = packed.install(returns(1, 100));
    auto b = packed.install(returns(2, 100), 64);
    auto c = packed.install(returns(3, 10));
    REQUIRE((a && b && c));
    if (packed.layout() == CodeArena::Layout::kPacked) {
      CHECK(*b - *a == 128);  // 100 bytes rounded up to the next multiple of 64
      CHECK(*c - *b == 112);  // 100 bytes rounded up to the next multiple of 16
    } else {
      MESSAGE("this system refuses executable shared memory: the arena fell back to a page each");
    }
    CHECK(holds(*a, returns(1), 1));
    CHECK(holds(*b, returns(2), 2));
    CHECK(holds(*c, returns(3), 3));

    CodeArena per_page(CodeArena::Layout::kPerPage);
    auto d = per_page.install(returns(4, 100));
    auto e = per_page.install(returns(5, 100));
    REQUIRE((d && e));
    CHECK(reinterpret_cast<std::uintptr_t>(*d) % 4096 == 0);
    CHECK(*e - *d == 4096);
  }

  TEST_CASE("a forked child installs its code apart from the memory its parent runs") {
    CodeArena arena;
    auto a = arena.install(returns(1, 100));
    REQUIRE(a);
    const std::vector<std::uint8_t> before(*a, *a + 4096);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      bool ok = true;
      for (std::uint32_t i = 0; i < 20; ++i) {
        auto at = arena.install(returns(100 + i, 100));
        ok = ok && at && holds(*at, returns(100 + i), 100 + i);
      }
      ::_exit(ok && holds(*a, returns(1), 1) ? 0 : 1);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    CHECK(std::vector<std::uint8_t>(*a, *a + 4096) == before);  // nothing written after the parent's code
    auto b = arena.install(returns(2, 100));
    REQUIRE(b);
    CHECK(holds(*a, returns(1), 1));
    CHECK(holds(*b, returns(2), 2));
  }

  TEST_CASE("an alignment that is not a power of two up to a page is refused") {
    for (CodeArena::Layout layout : {CodeArena::Layout::kPacked, CodeArena::Layout::kPerPage}) {
      CodeArena arena(layout);
      for (std::uint32_t alignment : {0u, 3u, 48u, 8192u}) {
        auto at = arena.install(returns(7), alignment);
        REQUIRE_FALSE(at);
        CHECK(at.error().message.find("alignment " + std::to_string(alignment)) != std::string::npos);
      }
      auto ok = arena.install(returns(8), 4096);
      REQUIRE(ok);
      CHECK(reinterpret_cast<std::uintptr_t>(*ok) % 4096 == 0);
      CHECK(holds(*ok, returns(8), 8));
    }
  }
}
