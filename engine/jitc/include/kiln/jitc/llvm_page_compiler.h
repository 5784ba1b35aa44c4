#pragma once
// The optimising page compiler on LLVM 14 (the shared libLLVM-14): one native function per page
// with a dispatch switch over its entries (jit_abi.h), optimised with LLVM's O2 pipeline for the
// host CPU, emitted as a PIC object (small code model) whose text and read-only sections are laid
// out back to back in one blob, with their PC-relative relocations resolved here. Math goes through
// the context's helper table, never through libcalls; a page whose object still needs anything
// outside itself (a libcall, an absolute address) gets stubs that bake the address, runs, and is
// marked not cacheable.
//
// Thread-safety: compile() may run on several threads at once (each thread keeps its own
// TargetMachine; every compile has its own LLVMContext).

#include <memory>
#include <string>

#include "kiln/jit/page_compiler.h"

namespace kiln::jitc {

struct LlvmCompilerOptions {
  int opt_level = 2;  // 0-3
  // Fault injection for the tests: lower `%` through LLVM's frem, which becomes a libcall to fmod
  // (a relocation outside the page), instead of floor through an instruction.
  bool frem_libcall = false;
};

class LlvmPageCompiler final : public jit::PageCompiler {
 public:
  explicit LlvmPageCompiler(LlvmCompilerOptions options = {});
  ~LlvmPageCompiler() override;
  Result<jit::CompiledPage> compile(const jit::PageRequest& request) override;
  std::string fingerprint() const override;

  // LLVM's name and features of this host (part of the fingerprint).
  static std::string host_target();

 private:
  LlvmCompilerOptions options_;
};

}  // namespace kiln::jitc
