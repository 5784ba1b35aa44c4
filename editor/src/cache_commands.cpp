#include "cache_commands.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "kiln/cache/blob_store.h"
#include "kiln/cache/cache_kinds.h"
#include "kiln/core/input_limits.h"
#include "kiln/core/text.h"

namespace kiln::cli {
namespace {

const std::string kUsage = "usage: kiln cache stats|clear [--kind K] [--json]; kiln cache verify|prune [--json]\n";
// --kind selects what stats shows and what clear removes; verify and prune always cover every kind
// (the cap is one over all of them).

nlohmann::json counts_json(const cache::BlobScanCounts& c, bool with_use) {
  nlohmann::json out = {{"entries", c.blobs},
                        {"bytes", c.bytes},
                        {"namespaces", c.namespaces},
                        {"corrupt", c.corrupt},
                        {"removed", c.removed}};
  if (with_use)
    out["use"] = {{"hits", c.use.hits},
                  {"misses", c.use.misses},
                  {"corrupt_deleted", c.use.corrupt},
                  {"writes", c.use.writes},
                  {"evictions", c.use.evictions},
                  {"remote",
                   {{"hits", c.use.remote_hits},
                    {"misses", c.use.remote_misses},
                    {"rejected", c.use.remote_rejected},
                    {"untrusted", c.use.remote_untrusted},
                    {"errors", c.use.remote_errors},
                    {"writes", c.use.remote_writes},
                    {"bytes_read", c.use.remote_bytes_read},
                    {"bytes_written", c.use.remote_bytes_written}}}};
  return out;
}

// "83% of 120": hits among lookups.
std::string hit_rate(const cache::KindUse& use) {
  const std::uint64_t lookups = use.hits + use.misses;
  if (!lookups) return "no lookups";
  return std::to_string(use.hits * 100 / lookups) + "% hits of " + std::to_string(lookups) + " lookups";
}

// One line per kind: "  shaders   24 entries  1.2 MiB  2 namespaces  compiled shader variants".
void print_kinds(const cache::BlobScan& scan, const std::string& only, bool show_corrupt, bool show_removed,
                 bool show_use) {
  for (const cache::CacheKind& kind : cache::cache_kinds()) {
    if (!only.empty() && kind.name != only) continue;
    const auto& c = scan.kinds.at(std::string(kind.name));
    std::string line = "  " + std::string(kind.name);
    line.resize(12, ' ');
    line += std::to_string(c.blobs) + " entries, " + describe_bytes(c.bytes) + ", " + std::to_string(c.namespaces) +
            (c.namespaces == 1 ? " namespace" : " namespaces");
    if (show_corrupt) line += ", " + std::to_string(c.corrupt) + " corrupt deleted";
    if (show_removed) line += ", " + std::to_string(c.removed) + " removed";
    if (show_use) line += ", " + hit_rate(c.use) + ", " + std::to_string(c.use.evictions) + " evicted";
    if (show_use && c.use.remote_hits + c.use.remote_misses + c.use.remote_errors + c.use.remote_writes +
                            c.use.remote_rejected + c.use.remote_untrusted >
                        0)
      line += "; remote " + std::to_string(c.use.remote_hits) + " hits, " + std::to_string(c.use.remote_misses) +
              " misses, " + std::to_string(c.use.remote_rejected) + " rejected, " +
              std::to_string(c.use.remote_untrusted) + " untrusted, " + std::to_string(c.use.remote_errors) +
              " errors, " + describe_bytes(c.use.remote_bytes_read) + " read, " +
              describe_bytes(c.use.remote_bytes_written) + " sent";
    std::printf("%s  (%s)\n", line.c_str(), std::string(kind.holds).c_str());
  }
}

}  // namespace

int run_cache_command(const Args& args, const LoadedConfig& loaded) {
  const std::string verb = args.words.size() > 1 ? args.words[1] : "";
  if (verb != "stats" && verb != "verify" && verb != "prune" && verb != "clear") {
    std::fprintf(stderr, "kiln cache: expected stats, verify, prune or clear\n%s", kUsage.c_str());
    return kExitUsage;
  }
  if (auto s = args.check_options({"--kind"}); !s) {
    std::fprintf(stderr, "kiln cache: %s\n%s", s.error().message.c_str(), kUsage.c_str());
    return kExitUsage;
  }
  const std::string kind = args.option("--kind");
  if (!kind.empty() && !cache::is_cache_kind(kind)) {
    std::fprintf(stderr, "kiln cache: unknown kind '%s' (%s)\n", kind.c_str(), cache::cache_kind_names().c_str());
    return kExitUsage;
  }
  if (!kind.empty() && (verb == "verify" || verb == "prune")) {
    std::fprintf(stderr, "kiln cache %s: covers every kind at once (--kind is for stats and clear)\n", verb.c_str());
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
  auto scan = verb == "stats"    ? (*store)->scan()
              : verb == "verify" ? (*store)->verify()
              : verb == "prune"  ? (*store)->prune()
                                 : (*store)->clear(kind);
  if (!scan) {
    std::fprintf(stderr, "kiln cache %s: %s\n", verb.c_str(), scan.error().message.c_str());
    return kExitFailed;
  }
  if (args.json) {
    nlohmann::json out = counts_json(*scan, verb == "stats");
    out["root"] = (*store)->root().string();
    out["cap_bytes"] = options.max_bytes;
    out["remote"] = without_credentials(loaded.config.cache_remote);
    // The totals under the names older scripts read.
    out["blobs"] = scan->blobs;
    for (const auto& [name, counts] : scan->kinds) out["kinds"][name] = counts_json(counts, verb == "stats");
    std::printf("%s\n", out.dump().c_str());
    return kExitOk;
  }
  std::printf("%s %s: %llu entries, %s of %s", verb.c_str(), (*store)->root().c_str(),
              static_cast<unsigned long long>(scan->blobs), describe_bytes(scan->bytes).c_str(),
              describe_bytes(options.max_bytes).c_str());
  if (verb == "verify") std::printf(", %llu corrupt deleted", static_cast<unsigned long long>(scan->corrupt));
  if (verb != "stats") std::printf(", %llu removed", static_cast<unsigned long long>(scan->removed));
  std::printf("\n");
  if (!loaded.config.cache_remote.empty())
    std::printf("remote %s%s\n", without_credentials(loaded.config.cache_remote).c_str(),
                loaded.config.cache_remote_read_only ? " (read-only)" : "");
  print_kinds(*scan, kind, verb == "verify", verb == "prune" || verb == "clear", verb == "stats");
  return kExitOk;
}

}  // namespace kiln::cli
