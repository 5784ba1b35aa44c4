#include "hand_over.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "cli_args.h"
#include "kiln/core/program_files.h"

namespace kiln::cli {
namespace {
constexpr const char* kHandedOver = "KILN_HANDED_OVER";
}  // namespace

bool runs_in_kiln(const std::string& command) {
  return command == "script" || command == "version" || command == "info" || command == "config";
}

bool take_hand_over_mark() {
  const bool marked = std::getenv(kHandedOver) != nullptr;
  if (marked) ::unsetenv(kHandedOver);
  return marked;
}

int hand_over(const char* program, const std::string& command, char** argv, bool handed_in) {
  if (handed_in) {
    const char* self = std::string_view(program) == "kiln" ? "kiln-tools" : "kiln";
    std::fprintf(stderr,
                 "kiln: '%s' came back to %s from the program that should run it: %s beside %s is not the one "
                 "built with it\n",
                 command.c_str(), self, program, self);
    return kExitFailed;
  }
  const std::filesystem::path path = find_program_file(program, /*executable=*/true);
  if (path.empty()) {
    std::fprintf(stderr, "kiln: '%s' runs in %s, which is not installed beside this program\n", command.c_str(),
                 program);
    return kExitFailed;
  }
  ::setenv(kHandedOver, "1", /*overwrite=*/1);
  ::execv(path.c_str(), argv);
  ::unsetenv(kHandedOver);
  std::fprintf(stderr, "kiln: cannot run %s: %s\n", path.c_str(), std::strerror(errno));
  return kExitFailed;
}

}  // namespace kiln::cli
