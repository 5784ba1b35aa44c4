#pragma once
// Files that hold secrets (a signing key, a farm's cache key): read only when no one but their
// owner can read them, the way ssh treats a private key. A FIFO, a directory or a huge file is an
// error, never a hang.
//
// Thread-safety: pure functions.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::trust {

// The bytes of `path`, a regular file of at most `max_bytes` that its owner alone may read (mode
// 0600 or stricter) and that belongs to this user (or to root). `what` names it in errors ("the
// signing key").
Result<std::vector<std::byte>> read_secret_file(const std::filesystem::path& path, const std::string& what,
                                                std::size_t max_bytes);

// Writes `bytes` to `path`, created with mode 0600; an existing file is never replaced (a key in
// use is not overwritten by mistake). Written aside and linked into place: never a torn key.
Status write_secret_file(const std::filesystem::path& path, const std::string& what, const std::string& bytes);

// `n` bytes from the kernel's random source.
Result<std::vector<std::byte>> random_bytes(std::size_t n);

}  // namespace kiln::trust
