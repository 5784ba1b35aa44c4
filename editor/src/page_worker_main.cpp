// kiln-page-worker: compiles script pages with LLVM (kiln-jitc.so) for the kiln tools, one request
// at a time, over the socket it is given as standard input. The tools start it; a person has no
// reason to.

#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <cstdio>

#include "kiln/jit/compiler_plugin.h"
#include "kiln/jit/isolated_page_compiler.h"

int main() {
  struct stat st {};
  if (::fstat(0, &st) != 0 || !S_ISSOCK(st.st_mode)) {
    std::fprintf(stderr,
                 "kiln-page-worker: compiles script pages for the kiln tools, which start it; not for direct use\n");
    return 2;
  }
  // Killed with the tool that started it: a compile that never ends must not outlive a killed cook.
  // (The tool may already be gone by the time this runs: then the socket is closed, and the first
  // read below ends the worker.)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The plugin beside this program: a worker installed with kiln loads kiln's compiler.
  auto compiler = kiln::jit::PluginPageCompiler::create({});
  if (!compiler) return kiln::jit::serve_page_requests(0, nullptr, compiler.error().message);
  return kiln::jit::serve_page_requests(0, compiler->get(), "");
}
