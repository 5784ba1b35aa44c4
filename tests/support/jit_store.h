#pragma once
// A script runtime with a cache store of its own, as one process has them: the store at `cache`
// (none when empty) opened first and closed last, so that a runtime made after another one's end
// reads what that one wrote, as the next process would.

#include <filesystem>
#include <memory>

#include <doctest/doctest.h>

#include "kiln/cache/blob_store.h"
#include "kiln/jit/jit_runtime.h"

namespace kiln::test {

struct StoredRuntime {
  std::unique_ptr<cache::BlobStore> store;  // first in, last out
  std::unique_ptr<jit::JitRuntime> runtime;
  jit::JitRuntime* get() const { return runtime.get(); }
  jit::JitRuntime* operator->() const { return runtime.get(); }
};

inline std::unique_ptr<cache::BlobStore> open_store(const std::filesystem::path& cache,
                                                    cache::BlobStoreOptions options = {}) {
  if (cache.empty()) return nullptr;
  options.root = cache;
  auto store = cache::BlobStore::open(std::move(options));
  REQUIRE_MESSAGE(store, store.error().message);
  return std::move(*store);
}

inline StoredRuntime stored_runtime(jit::JitOptions options, const std::filesystem::path& cache) {
  StoredRuntime made{open_store(cache), nullptr};
  options.store = made.store.get();
  auto runtime = jit::JitRuntime::create(options);
  REQUIRE_MESSAGE(runtime, runtime.error().message);
  made.runtime = std::move(*runtime);
  return made;
}

}  // namespace kiln::test
