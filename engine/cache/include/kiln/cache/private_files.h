#pragma once
// File-system primitives of the persistent stores: private directories and atomic writes.

#include <filesystem>
#include <span>

#include "kiln/core/atomic_output.h"
#include "kiln/core/result.h"

namespace kiln::cache {

// Creates `dir` and its missing parents with mode 0700.
Status make_private_dirs(const std::filesystem::path& dir);

// A directory of the store, made fit for use: created (0700, parents too) when missing; refused
// when it is a symbolic link, not a directory, or owned by another user ("owned by uid N"); made
// private (0700) when group or others have any access, and then everything beneath it too.
Status use_private_dir(const std::filesystem::path& dir);

// Takes group's and others' access from every file and directory beneath `dir` that this user
// owns (symbolic links are left alone). Best effort: what cannot be changed stays as it is.
void make_tree_private(const std::filesystem::path& dir);

// The same for each entry directly in `dir` that group or others may touch, with everything beneath
// it: a look at a handful of entries when `dir` is a cache root that is private already.
void make_open_entries_private(const std::filesystem::path& dir);

// Writes `data` to `path` through a temp file in the same directory, fsync and rename: readers
// see the old file, no file, or the whole new one, whatever crashes when. Creates the directory
// (0700) if it is missing, also when a pruner removed it concurrently. kRenamedOnly skips the fsync
// (atomic_output.h) for files whose loss in a crash costs nothing but counts.
Status write_file_atomic(const std::filesystem::path& path, std::span<const std::byte> data,
                         Durability durability = Durability::kFlushed);

// Temp files are named ".tmp.<pid>.<n>.<target name>", so that a pruner can tell them apart.
bool is_temp_file_name(std::string_view name);

}  // namespace kiln::cache
