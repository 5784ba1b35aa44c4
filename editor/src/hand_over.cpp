#include "hand_over.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "cli_args.h"
#include "kiln/core/program_files.h"

namespace kiln::cli {

int hand_over(const char* program, const std::string& command, char** argv) {
  const std::filesystem::path path = find_program_file(program, /*executable=*/true);
  if (path.empty()) {
    std::fprintf(stderr, "kiln: '%s' runs in %s, which is not installed beside this program\n", command.c_str(),
                 program);
    return kExitFailed;
  }
  ::execv(path.c_str(), argv);
  std::fprintf(stderr, "kiln: cannot run %s: %s\n", path.c_str(), std::strerror(errno));
  return kExitFailed;
}

}  // namespace kiln::cli
