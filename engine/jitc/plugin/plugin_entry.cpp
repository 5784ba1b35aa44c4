// The entry point of kiln-jitc.so, the LLVM page compiler as a plugin the tools load when a page
// must be compiled (kiln/jit/compiler_plugin.h).

#include <cstring>

#include "kiln/jit/compiler_plugin.h"
#include "kiln/jit/jit_runtime.h"
#include "kiln/jitc/llvm_page_compiler.h"

extern "C" __attribute__((visibility("default"))) kiln::jit::PageCompiler* kiln_jitc_create_compiler_v2(
    const char* build_id, int opt_level, int frem_libcall) {
  // Another tree's plugin may lay out the classes it hands over differently: refused.
  if (!build_id || std::strcmp(build_id, kiln::jit::jit_build_id()) != 0) return nullptr;
  return new kiln::jitc::LlvmPageCompiler({.opt_level = opt_level, .frem_libcall = frem_libcall != 0});
}
