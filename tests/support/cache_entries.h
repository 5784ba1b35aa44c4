#pragma once
// What tests need to know of the cache directory's layout, in one place: where each kind keeps its
// entries, and how to damage or forge one the way an attacker who knows the formats would.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kiln::test {

// The entry files of one cache kind ("shaders", "jit", "textures") under `cache`, sorted; of the
// jit kind, its pages (not the kept compiler fingerprints).
std::vector<std::filesystem::path> cache_entries(const std::filesystem::path& cache, const std::string& kind);

// The entries of the jit kind that keep the script compiler's fingerprint (one per host and
// setting), and removing every page namespace of the kind while they stay.
std::vector<std::filesystem::path> kept_fingerprints(const std::filesystem::path& cache);
void remove_cached_pages(const std::filesystem::path& cache);

// The per-user key that signs cached script pages.
std::filesystem::path page_cache_key(const std::filesystem::path& cache);

// A shader cache blob's payload, and the blob rewritten to hold `payload` with every length and
// checksum of its header made to match (so that only a check of the content can tell).
std::string blob_payload(const std::filesystem::path& blob);
void rewrite_blob_payload(const std::filesystem::path& blob, const std::string& payload);

// Rewrites every cached script page with code made of `fill` bytes, signed with the user's own key
// as the page cache signs it. Returns how many were rewritten.
int forge_cached_pages(const std::filesystem::path& cache, std::uint8_t fill);

// A temp file beside `entry`, named as a writer names its temp files and two hours old: what a
// writer killed mid-write leaves behind. Returns its path.
std::filesystem::path plant_stale_temp_file(const std::filesystem::path& entry);

}  // namespace kiln::test
