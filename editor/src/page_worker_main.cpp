// kiln-page-worker: compiles script pages with LLVM (kiln-jitc.so) for the kiln tools, one request
// at a time, over the socket it is given as standard input. The tools start it; a person has no
// reason to.

#include <sys/stat.h>

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
  // The plugin beside this program: a worker installed with kiln loads kiln's compiler.
  auto compiler = kiln::jit::PluginPageCompiler::create({});
  if (!compiler) return kiln::jit::serve_page_requests(0, nullptr, compiler.error().message);
  return kiln::jit::serve_page_requests(0, compiler->get(), "");
}
