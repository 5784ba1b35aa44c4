#include "trust_commands.h"

#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "kiln/cache/hash.h"
#include "kiln/core/input_limits.h"
#include "kiln/core/text.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/signing/signing_key.h"
#include "kiln/trust/trust_policy.h"

namespace kiln::cli {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

int failed(const std::string& message) {
  std::fprintf(stderr, "kiln: %s\n", message.c_str());
  return kExitFailed;
}

}  // namespace

int run_key_command(const Args& args, const LoadedConfig&) {
  const fs::path file = args.words.at(2);
  if (args.has("--remote")) {
    if (auto made = signing::generate_remote_key(file); !made) return failed(made.error().message);
    if (args.json)
      std::printf("%s\n", nlohmann::json({{"remote_key", file.string()}})
                              .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                              .c_str());
    else
      std::printf(
          "key: %s: a remote cache key (32 random bytes, mode 0600): give it to every machine of the farm "
          "as cache.remote_key\n",
          file.c_str());
    return kExitOk;
  }
  auto key = signing::generate_key_pair(file);
  if (!key) return failed(key.error().message);
  if (args.json) {
    std::printf(
        "%s\n",
        nlohmann::json({{"private_key", file.string()}, {"public_key", file.string() + ".pub"}, {"key", key->id()}})
            .dump()
            .c_str());
  } else {
    std::printf("key: %s (private, mode 0600) and %s.pub, key %s\n", file.c_str(), file.c_str(), key->id().c_str());
    std::printf("key: sign with kiln cook --sign %s; players trust %s.pub (kiln-player --trust)\n", file.c_str(),
                file.c_str());
  }
  return kExitOk;
}

int run_set_command(const Args& args, const LoadedConfig& loaded) {
  const fs::path dir = args.words.at(2);
  // --trust, else the player's configured keys: a set is checked against what the game trusts.
  std::vector<fs::path> key_files;
  for (const auto& v : args.option_values("--trust")) key_files.emplace_back(v);
  if (key_files.empty()) key_files = loaded.config.player_trusted_keys;
  auto policy = trust::load_trust_policy(key_files, loaded.config.player_require_signature);
  if (!policy) {
    std::fprintf(stderr, "kiln: %s\n", policy.error().message.c_str());
    return kExitUsage;
  }
  const auto started = Clock::now();
  auto opened = runtime::CookedSet::open(dir, *policy);
  if (!opened) return failed(opened.error().message);
  const runtime::CookedSet& set = **opened;
  const runtime::Manifest& manifest = set.manifest();

  // Under a trust policy open() compared every pack's SHA-256 with the signed manifest's; without
  // one they are compared here.
  nlohmann::json packs = nlohmann::json::array();
  std::string problems;
  std::uint64_t bytes = 0;
  const bool hashed = !set.verified_signer().empty();
  for (const auto& [kind, named] : manifest.packs) {
    const runtime::Pack& pack = set.pack(kind);
    const std::string sha256 = hashed ? named.sha256 : cache::sha256_hex(pack.bytes());
    const bool matches = named.sha256.empty() || sha256 == named.sha256;
    if (!matches)
      problems += (problems.empty() ? "" : "\n") + pack.path().string() + ": its SHA-256 " + sha256.substr(0, 12) +
                  " is not the manifest's (" + named.sha256.substr(0, 12) + ")";
    bytes += pack.file_size();
    packs.push_back({{"kind", runtime::pack_kind_name(kind)},
                     {"file", named.file},
                     {"bytes", pack.file_size()},
                     {"sha256", sha256},
                     {"matches", matches}});
  }
  const double hash_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  if (auto checked = set.check(); !checked) problems += (problems.empty() ? "" : "\n") + checked.error().message;

  const bool is_signed = manifest.signature.has_value();
  const std::string signer = is_signed ? manifest.signature->key_id : "";
  const bool trusted = !set.verified_signer().empty();
  if (args.json) {
    const nlohmann::json out = {
        {"set", dir.string()},
        {"signed", is_signed},
        {"key", is_signed ? nlohmann::json(signer) : nlohmann::json(nullptr)},
        {"trusted", trusted},
        {"packs", packs},
        {"bytes", bytes},
        {"ms", hash_ms},
        {"problems", problems.empty() ? 0 : std::count(problems.begin(), problems.end(), '\n') + 1},
        {"ok", problems.empty()}};
    std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    if (trusted)
      std::printf("set: %s: signed by key %s, a trusted key: the signature and every pack's SHA-256 verified\n",
                  dir.c_str(), signer.c_str());
    else if (is_signed)
      std::printf("set: %s: signed by key %s (not checked against a trusted key: give --trust KEY.pub)\n", dir.c_str(),
                  signer.c_str());
    else
      std::printf("set: %s: not signed\n", dir.c_str());
    std::printf("set: %s in %s, hashed in %.1f ms\n", count_of(packs.size(), "pack").c_str(),
                describe_bytes(bytes).c_str(), hash_ms);
  }
  if (!problems.empty()) return failed(problems);
  if (!args.json) std::printf("set: every material, variant and texture decodes\n");
  return kExitOk;
}

}  // namespace kiln::cli
