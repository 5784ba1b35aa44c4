#pragma once
// Builds the LLVM IR of one page: `i64 kiln_page(ctx*, i32 entry)`, a switch over the entries, one
// basic block per instruction, registers in SSA form (loaded at entry, stored back at every exit).

#include <llvm/IR/Module.h>

#include "kiln/core/result.h"
#include "kiln/jit/inlining.h"
#include "kiln/jit/page_analysis.h"
#include "kiln/jit/page_compiler.h"

namespace kiln::jitc {

inline constexpr const char* kPageFunctionName = "kiln_page";

struct EmitOptions {
  bool frem_libcall = false;  // fault injection: `%` through frem (a libcall), see LlvmCompilerOptions
};

// Adds the page function to `module`. The entries served are the request's entries that start an
// instruction; they are returned. `shape` is the page's own (its first kPageWords key words); the
// callees after them are inlined where the page calls them.
Result<std::vector<std::uint16_t>> emit_page(llvm::Module& module, const jit::PageRequest& request,
                                             const jit::PageShape& shape, const EmitOptions& options);

}  // namespace kiln::jitc
