// The entry point of kiln-jitc.so, the LLVM page compiler as a plugin the tools load when a page
// must be compiled (kiln/jit/compiler_plugin.h).

#include "kiln/jit/compiler_plugin.h"
#include "kiln/jitc/llvm_page_compiler.h"

extern "C" __attribute__((visibility("default"))) kiln::jit::PageCompiler* kiln_jitc_create_compiler_v1(
    int opt_level, int frem_libcall) {
  return new kiln::jitc::LlvmPageCompiler({.opt_level = opt_level, .frem_libcall = frem_libcall != 0});
}
