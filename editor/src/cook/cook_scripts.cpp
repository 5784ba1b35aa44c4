#include "cook/cook_scripts.h"

#include <atomic>
#include <optional>
#include <set>

#include "script_runtime.h"
#include "kiln/jit/aot_pages.h"
#include "kiln/jit/inlining.h"
#include "kiln/jit/page_analysis.h"
#include "kiln/jit/page_store.h"

namespace kiln::cook {
namespace {

// The compiled pages of every script (of `hot` only, when given), read back from the page cache
// (or compiled here when the cache does not have them).
void ship_pages(const project::Project& project, cache::BlobStore* store, jit::PageCompiler& compiler,
                const std::set<std::string>* hot, CookedScripts& cooked) {
  auto& out = cooked.pages;
  std::unique_ptr<jit::PageStore> pages;
  if (store) {
    auto opened =
        jit::PageStore::open({.store = store, .build_id = jit::jit_build_id(), .fingerprint = compiler.fingerprint()});
    if (opened) pages = std::move(*opened);
  }
  std::set<std::string> seen;
  for (const auto& s : project.scripts) {
    const jit::ValueCallees values = jit::value_callees(s.program);
    for (std::size_t p = 0; p < s.program.page_count(); ++p) {
      const std::vector<std::uint32_t> page = jit::page_key_words(s.program, p, values);
      const std::string id = jit::aot_page_id(page, jit::abi::JitMode::kChecked);
      if (!seen.insert(id).second) continue;
      if (hot && !hot->count(id)) {
        ++cooked.left_cold;
        continue;
      }
      const auto entries = jit::jit_entries(s.program.page(p), s.program.entries[p]);
      std::optional<jit::StoredPage> code;
      if (pages) code = pages->find(page, entries, jit::abi::JitMode::kChecked).hit;
      if (!code) {
        auto compiled = compiler.compile({page, entries, jit::abi::JitMode::kChecked});
        if (compiled && compiled->cacheable)
          code = jit::StoredPage{compiled->code, compiled->function_offset, compiled->alignment, compiled->entries};
      }
      if (code) out.emplace_back(id, jit::encode_aot_page(page, *code));
    }
  }
}

}  // namespace

bool cook_scripts(const project::Project& project, const Config& config, cache::BlobStore* store, bool verify,
                  jit::PageCompiler& compiler, core::WorkerPool& pool, Progress& progress,
                  const std::set<std::string>* hot, CookedScripts& out, CookErrors& errors) {
  {
    auto runtime = cli::open_jit_runtime({.compiler = &compiler,
                                          .store = store,
                                          .verify = verify || config.jit_cache_verify,
                                          .compile_threads = pool.size(),
                                          .synchronous = true},
                                         "kiln cook");
    if (!runtime) {
      errors.add("kiln cook: " + runtime.error().message);
      return false;
    }
    // Each script's pages compile on one pool thread; a page two scripts share is compiled once.
    // By usage records, only the hot pages (--verify checks every page the cache holds).
    const std::set<std::string>* only = verify ? nullptr : hot;
    std::atomic<std::size_t> done{0};
    pool.parallel_for(project.scripts.size(), [&](std::size_t i) {
      (*runtime)->precompile(project.scripts[i].program, jit::abi::JitMode::kChecked, only);
      progress.tick("scripts", ++done, project.scripts.size());
    });
    if (!project.scripts.empty()) progress.done("scripts");
    out.stats = (*runtime)->stats();
  }
  if (out.stats.verify_mismatches)
    errors.add("cook: --verify: " + std::to_string(out.stats.verify_mismatches) +
               " script pages differ from a fresh compile of them");
  ship_pages(project, store, compiler, hot, out);
  return true;
}

}  // namespace kiln::cook
