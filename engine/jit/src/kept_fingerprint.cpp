#include "kept_fingerprint.h"

#include "kiln/cache/hash.h"
#include "kiln/jit/host_features.h"
#include "kiln/jit/jit_runtime.h"

namespace kiln::jit {

KeptFingerprint::KeptFingerprint(cache::BlobStore* store, int opt_level, bool frem_libcall) : store_(store) {
  if (!store_) return;
  if (auto ns = store_->open_namespace("jit", {{"jit-build", jit_build_id()}}, {{"kept", "compiler-fingerprint"}}))
    ns_ = std::move(*ns);
  const std::string identity =
      host_cpu_signature() + "\nO" + std::to_string(opt_level) + (frem_libcall ? "\nfrem-libcall" : "");
  key_ = {cache::xxh3_128(identity)};
}

std::optional<std::string> KeptFingerprint::read() const {
  if (!ns_) return std::nullopt;
  auto kept = store_->get(*ns_, key_);
  if (!kept) return std::nullopt;
  std::string text(reinterpret_cast<const char*>(kept->data()), kept->size());
  // One line, naming no feature this CPU lacks.
  if (text.empty() || text.size() > 4096 || text.find('\n') != std::string::npos || !missing_cpu_features(text).empty())
    return std::nullopt;
  return text;
}

void KeptFingerprint::keep(const std::string& actual) const {
  if (!ns_) return;
  const auto bytes = std::as_bytes(std::span(actual.data(), actual.size()));
  store_->put(*ns_, key_, cache::Bytes(bytes.begin(), bytes.end()));
}

}  // namespace kiln::jit
