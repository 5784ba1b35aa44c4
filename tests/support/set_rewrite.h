#pragma once
// Forged cooked sets for tests: a copy of a set whose entries went through an edit, with every
// pack checksum recomputed, as someone who knows the format (but holds no signing key) would make.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "kiln/runtime/pack.h"

namespace kiln::test {

using EntryEdit = std::function<std::vector<std::byte>(runtime::PackKind, const std::string&, std::vector<std::byte>)>;

// A copy of the cooked set `from` at `to` whose entries went through `edit` (kind, name, payload ->
// payload), every pack and the manifest with valid checksums and SHA-256 (a signature stays as it
// was): only what the entries say is wrong.
void rewrite_set(const std::filesystem::path& from, const std::filesystem::path& to, const EntryEdit& edit);

// A copy of the set `from` at `to` whose payloads went through `edit` in place, each keeping its
// length: the manifest and every pack's header and index stay byte for byte as they were (the
// pack still opens against the manifest; only its payloads' own checksums and its SHA-256 differ).
void patch_set_in_place(const std::filesystem::path& from, const std::filesystem::path& to, const EntryEdit& edit);

}  // namespace kiln::test
