#pragma once
// A file's identity as stat gives it, and the rule by which an identity recorded once stands for
// the file's bytes later (as git trusts its index): equal identities say the file was not written in
// between, provided its change time lay a settling margin before the identity was taken. The
// margin (3 s) is clear of any file system's timestamp granularity (two seconds on FAT) and of the
// coarse clock the kernel stamps files with, so a write after it cannot leave the identity as it was.
//
// Thread-safety: free functions over their arguments; safe from any thread.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace kiln {

inline constexpr std::int64_t kFileSettleNs = 3'000'000'000;

struct FileIdentity {
  std::uint64_t device = 0, inode = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
  // "device inode size mtime_ns ctime_ns", as records write it.
  std::string text() const;
  // Whether a change time this old at `now_ns` may be trusted not to move without the file changing.
  bool settled_at(std::int64_t now_ns) const { return ctime_ns + kFileSettleNs <= now_ns; }
};

// The identity of the file `path` leads to (links followed); nullopt when it cannot be stat'ed.
std::optional<FileIdentity> file_identity(const std::filesystem::path& path);

// The wall clock in nanoseconds: the clock file times are stamped with.
std::int64_t wall_clock_ns();

}  // namespace kiln
