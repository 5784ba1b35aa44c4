#pragma once
// HMAC-SHA256 (RFC 2104) under a farm's shared key: proves that whoever wrote a remote cache entry
// held the key, where a checksum proves only that the entry is intact. A key file holds exactly 32
// random bytes (`kiln key generate --remote`), readable by its owner alone. Keys and tags are
// never printed.
//
// Thread-safety: plain values and pure functions.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::trust {

inline constexpr std::size_t kHmacKeyBytes = 32;
inline constexpr std::size_t kHmacTagBytes = 32;
using HmacKey = std::array<std::byte, kHmacKeyBytes>;
using HmacTag = std::array<std::uint8_t, kHmacTagBytes>;

// The tag of the concatenation of `pieces` under `key`.
HmacTag hmac_sha256(const HmacKey& key, std::initializer_list<std::span<const std::byte>> pieces);
// Compares in time that does not depend on where the tags differ.
bool same_tag(std::span<const std::uint8_t, kHmacTagBytes> a, std::span<const std::uint8_t, kHmacTagBytes> b);

// The key in `path`: exactly 32 bytes, mode 0600 (secret_file.h).
Result<HmacKey> read_hmac_key(const std::filesystem::path& path);
// Every key of a list, in order (the first writes, any verifies); an error names the first bad file.
Result<std::vector<HmacKey>> read_hmac_keys(const std::vector<std::filesystem::path>& paths);

}  // namespace kiln::trust
