#pragma once
// The paths a project names — a material's shader and textures, a shader's includes, its scripts —
// must stay inside the project, or inside a directory the project configures (include
// directories). A path that leaves them, by `..`, by being absolute, or through a symbolic link,
// would make a cook read build-machine files and pack them under names that depend on the
// machine. These checks are the one rule every loader applies.
//
// Thread-safety: free functions over their arguments; safe from any thread.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"

namespace kiln {

// `name` as written in a project file, checked lexically and normalised: relative, and not
// climbing out of the root with "..". The error says which.
Result<std::string> project_relative_name(std::string_view name);

// True when `path` is relative and has no empty, "." or ".." segment: it is already lexically
// normal, and joining it to a normal path needs no normalisation.
bool plain_relative(std::string_view path);

// The same string as (normal_base / rel).lexically_normal(), for a `normal_base` that is already
// lexically normal: a concatenation when `rel` is plain_relative (the common case: names from a
// project listing), lexically_normal otherwise.
std::string normal_join(const std::string& normal_base, std::string_view rel);

// The allowed roots, each made absolute and with symbolic links resolved (a root that does not
// exist yet is kept as given, made absolute).
std::vector<std::filesystem::path> canonical_roots(const std::vector<std::filesystem::path>& roots);

// True when `file`, with every symbolic link resolved, lies inside one of `roots` (from
// canonical_roots). `resolved` receives where it leads.
bool resolves_inside(const std::filesystem::path& file, const std::vector<std::filesystem::path>& roots,
                     std::filesystem::path* resolved = nullptr);

// The files below root/dir (relative to root, generic, sorted) whose name ends with `extension`
// (empty: any). Anything so named is listed whatever its type — a directory, FIFO, device or
// dangling link too — so that the reader refuses it by name instead of it going missing from a
// cook; with no extension, everything but directories. Does not descend into symbolic links to
// directories, skips hidden names, and never throws: an unreadable or vanished directory is
// skipped. Symbolic links are listed under their own name: the caller checks where they lead.
std::vector<std::string> list_project_files(const std::filesystem::path& root, const std::string& dir,
                                            const std::string& extension);

// How messages name a project's files: relative to its root, so that a cook and an editor of the
// same project say the same words wherever the project lies. The root's spellings (as given,
// absolute, canonical), each ending in '/'.
std::vector<std::string> project_prefixes(const std::filesystem::path& root);
// `text` with every path under the root made relative to it, wherever a path starts: at the start
// of the text or of a line, or after a space, a quote or '('.
std::string relative_to_project(std::string text, const std::vector<std::string>& prefixes);

}  // namespace kiln
