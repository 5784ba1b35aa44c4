#pragma once
// libtiff's run-time version, which names the texture caches' namespaces, known without loading
// libtiff when the library file the loader would map is the one the version was read from: a cook
// whose textures are all kept then maps none of libtiff and its seven codecs (about a millisecond
// of every such cook).
//
// The memo holds the version and what decides which file the loader maps: that file's identity
// (device, inode, size, modification and change times), the identities of /etc/ld.so.cache and
// /etc/ld.so.preload, and LD_LIBRARY_PATH and LD_PRELOAD. It is trusted only when all of them are
// unchanged; otherwise libtiff is loaded and the memo written again. A memo that does not read is
// one that does not match. It is written only for a library file last changed at least 3 s before
// the load (the same rule as a kept pack's identity): one being replaced is loaded every time.
//
// Thread-safety: callable from any thread; two writers of one memo replace it atomically.

#include <filesystem>
#include <string>

#include "kiln/core/result.h"

namespace kiln::textures {

// The memo's name in the textures kind's directory of a cache store.
inline constexpr const char* kLibtiffVersionMemo = "libtiff-version";

// The first line of TIFFGetVersion() ("LIBTIFF, Version 4.5.0"), from `memo` when it matches.
Result<std::string> libtiff_version(const std::filesystem::path& memo);

}  // namespace kiln::textures
