#pragma once
// A fuzz target is one loader run on arbitrary bytes, with its contract asserted: a clear error
// (non-empty, naming the input) or a valid result — never a crash, a hang, a leak or a sanitizer
// report. KILN_FUZZ_TARGET(name) registers the body; the libFuzzer executable fuzz_<name> runs it,
// and the test suite replays every corpus and regression input of every target through it.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace kiln::fuzz {

using Body = void (*)(std::span<const std::uint8_t> data);
std::map<std::string, Body>& registry();
struct Registration {
  Registration(const char* name, Body body) { registry()[name] = body; }
};

// Breaks the contract loudly: libFuzzer and the replay test both see the abort.
[[noreturn]] inline void contract_broken(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz contract broken: %s\n", file, line, what);
  std::abort();
}

inline std::string_view as_text(std::span<const std::uint8_t> data) {
  return {reinterpret_cast<const char*>(data.data()), data.size()};
}

// The bytes as a file for loaders that take a path: an anonymous memory file, named through
// /proc/self/fd so that nothing touches the disk.
class MemoryFile {
 public:
  explicit MemoryFile(std::span<const std::uint8_t> data);
  ~MemoryFile();
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace kiln::fuzz

#define KILN_FUZZ_CHECK(condition)                                                   \
  do {                                                                               \
    if (!(condition)) ::kiln::fuzz::contract_broken(#condition, __FILE__, __LINE__); \
  } while (0)

// An error must say something and name the input it was given.
#define KILN_FUZZ_CHECK_ERROR(error, name)                            \
  do {                                                                \
    KILN_FUZZ_CHECK(!(error).message.empty());                        \
    KILN_FUZZ_CHECK((error).message.find(name) != std::string::npos); \
  } while (0)

#define KILN_FUZZ_TARGET(name)                                                                         \
  static void kiln_fuzz_body_##name(std::span<const std::uint8_t> data);                               \
  static const ::kiln::fuzz::Registration kiln_fuzz_registration_##name(#name, kiln_fuzz_body_##name); \
  static void kiln_fuzz_body_##name(std::span<const std::uint8_t> data)
