#pragma once
// Which cooked sets a reader accepts: with a policy in force, a set must carry a valid signature
// by one of `keys` over its manifest, and every pack must have the SHA-256 the signed manifest
// names. Without one (no key, no requirement), a set is read as its checksums allow.
//
// Thread-safety: plain values.

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/trust/public_key.h"

namespace kiln::trust {

struct TrustPolicy {
  std::vector<PublicKey> keys;     // player.trusted_keys: several, so that keys can rotate
  bool require_signature = false;  // player.require_signature: refuse to play anything unsigned, even
                                   // when no key is listed (a configuration that lost its keys fails)
  bool active() const { return require_signature || !keys.empty(); }
  // The trusted key with `id`, or nullptr.
  const PublicKey* find(const std::string& id) const;
};

// The policy of the key files `paths` (each read with read_public_key) and `require_signature`.
Result<TrustPolicy> load_trust_policy(const std::vector<std::filesystem::path>& paths, bool require_signature);

}  // namespace kiln::trust
