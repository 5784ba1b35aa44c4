// kiln-shader-worker: compiles GLSL stages for the kiln tools, one request at a time, over the
// socket it is given as standard input. The tools start it; a person has no reason to. Its address
// space is limited, so that a shader whose macros expand without bound fails alone.

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "kiln/core/sanitizers.h"
#include "kiln/shadercache/isolated_compiler.h"

namespace {

// The address space in use now: the limit is added to it, so that what the runtime (or a
// sanitizer) reserved at start-up does not count against the compiles.
unsigned long long address_space_in_use() {
  std::ifstream statm("/proc/self/statm");
  unsigned long long pages = 0;
  statm >> pages;
  return pages * static_cast<unsigned long long>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

int main(int argc, char** argv) {
  struct stat st {};
  if (::fstat(0, &st) != 0 || !S_ISSOCK(st.st_mode)) {
    std::fprintf(stderr,
                 "kiln-shader-worker: compiles shaders for the kiln tools, which start it; not for direct use\n");
    return 2;
  }
  // A worker leaves when the tool hangs up, even mid-compile (see serve_compile_requests).
  // Under the sanitizers the address space is reserved up front and a limit would fail everything;
  // the tool watches the worker's resident memory as well, which holds in every build.
#ifndef KILN_SANITIZED
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--memory-limit") != 0) continue;
    const unsigned long long limit = std::strtoull(argv[i + 1], nullptr, 10);
    if (limit == 0) continue;
    // Plus the compile thread's stack and malloc arena, reserved whole but used as needed.
    const unsigned long long reserved = address_space_in_use() + kiln::shadercache::kCompileStackBytes + (128ull << 20);
    const rlimit rl{reserved + limit, reserved + limit};
    ::setrlimit(RLIMIT_AS, &rl);
  }
#else
  (void)argc, (void)argv, (void)address_space_in_use;
#endif
  return kiln::shadercache::serve_compile_requests(0);
}
