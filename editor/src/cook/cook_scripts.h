#pragma once
// The cook's scripts stage: every page of every script compiled with every entry into the page
// cache (ahead of time, on the tool's worker pool), then the compiled pages read back for the
// scripts pack. Pages that need something outside themselves are left to the interpreter.
//
// Thread-safety: called from the cook's thread; the work runs on `pool`.

#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cook/cook_errors.h"
#include "kiln/project/project.h"
#include "cook/progress.h"
#include "kiln/core/config.h"
#include "kiln/core/worker_pool.h"
#include "kiln/jit/jit_runtime.h"
#include "kiln/jit/page_compiler.h"

namespace kiln::cook {

struct CookedScripts {
  jit::JitStats stats;
  std::vector<std::pair<std::string, std::vector<std::byte>>> pages;  // page id -> shipped page
  std::size_t left_cold = 0;  // pages no usage record names, left to the interpreter
};

// Every page compiled into the page cache of `store` (none: the cache is off) and read back to ship;
// with `hot` (the page ids usage records name), only those pages, the rest left to the interpreter.
// False (with the reason in `errors`) when no script runtime could be made; --verify mismatches
// are errors too.
bool cook_scripts(const project::Project& project, const Config& config, cache::BlobStore* store, bool verify,
                  jit::PageCompiler& compiler, core::WorkerPool& pool, Progress& progress,
                  const std::set<std::string>* hot, CookedScripts& out, CookErrors& errors);

}  // namespace kiln::cook
