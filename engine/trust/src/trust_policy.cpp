#include "kiln/trust/trust_policy.h"

namespace kiln::trust {

const PublicKey* TrustPolicy::find(const std::string& id) const {
  for (const PublicKey& key : keys)
    if (key.id() == id) return &key;
  return nullptr;
}

Result<TrustPolicy> load_trust_policy(const std::vector<std::filesystem::path>& paths, bool require_signature) {
  TrustPolicy policy;
  policy.require_signature = require_signature;
  for (const auto& path : paths) {
    auto key = read_public_key(path);
    if (!key) return key.error();
    policy.keys.push_back(*key);
  }
  return policy;
}

}  // namespace kiln::trust
