#include "cache_commands.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "kiln/cache/blob_store.h"

namespace kiln::cli {

int run_cache_command(const Args& args, const LoadedConfig& loaded) {
  const std::string verb = args.words.size() > 1 ? args.words[1] : "";
  if (verb != "prune" && verb != "verify") {
    std::fprintf(stderr, "kiln cache: expected 'prune' or 'verify'\n");
    return kExitUsage;
  }
  cache::BlobStoreOptions options;
  options.root = loaded.config.cache_root;
  options.max_bytes = loaded.config.cache_disk_max_bytes;
  options.keep_namespaces = loaded.config.cache_keep_builds;
  auto store = cache::BlobStore::open(options);
  if (!store) {
    std::fprintf(stderr, "kiln cache: %s\n", store.error().message.c_str());
    return kExitFailed;
  }
  auto scan = verb == "prune" ? (*store)->prune() : (*store)->verify();
  if (!scan) {
    std::fprintf(stderr, "kiln cache %s: %s\n", verb.c_str(), scan.error().message.c_str());
    return kExitFailed;
  }
  if (args.json) {
    nlohmann::json out = {{"root", (*store)->root().string()}, {"blobs", scan->blobs},
                          {"bytes", scan->bytes},              {"corrupt", scan->corrupt},
                          {"removed", scan->removed}};
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("%s %s: %llu blobs, %s, %llu corrupt deleted, %llu removed\n", verb.c_str(),
                (*store)->root().c_str(), static_cast<unsigned long long>(scan->blobs), format_size(scan->bytes).c_str(),
                static_cast<unsigned long long>(scan->corrupt), static_cast<unsigned long long>(scan->removed));
  }
  return kExitOk;
}

}  // namespace kiln::cli
