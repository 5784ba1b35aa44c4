#include "cache_entries.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "kiln/cache/hash.h"
#include "kiln/jit/page_file.h"
#include "test_files.h"

namespace kiln::test {
namespace fs = std::filesystem;
namespace {

void spill(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

std::span<const std::byte> as_bytes(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

// The shader blob header: 64 bytes, payload length at 32, payload XXH3-64 at 40, header XXH3-64
// of bytes 0..55 at 56 (little-endian).
constexpr std::size_t kBlobHeader = 64;

// Whether a namespace directory of the jit kind keeps compiler fingerprints (its NAMESPACE.txt
// says so), not pages.
bool keeps_fingerprints(const fs::path& ns) {
  return slurp(ns / "NAMESPACE.txt").find("kept = compiler-fingerprint") != std::string::npos;
}

std::vector<fs::path> entries_under(const fs::path& dir, bool fingerprints) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it.depth() == 0 && it->is_directory(ec) && fs::exists(it->path() / "NAMESPACE.txt") &&
        keeps_fingerprints(it->path()) != fingerprints) {
      it.disable_recursion_pending();
      continue;
    }
    const std::string name = it->path().filename().string();
    const std::string ext = it->path().extension().string();
    if (name.empty() || name[0] == '.' || (ext != ".blob" && ext != ".jc" && ext != ".tx")) continue;
    if (it->is_regular_file(ec) || it->is_fifo(ec)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<fs::path> cache_entries(const fs::path& cache, const std::string& kind) {
  return entries_under(cache / kind, false);
}

std::vector<fs::path> kept_fingerprints(const fs::path& cache) { return entries_under(cache / "jit", true); }

void remove_cached_pages(const fs::path& cache) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(cache / "jit", ec))
    if (e.is_directory() && fs::exists(e.path() / "NAMESPACE.txt") && !keeps_fingerprints(e.path()))
      fs::remove_all(e.path());
}

fs::path page_cache_key(const fs::path& cache) { return cache / "jit" / "secret.key"; }

std::string blob_payload(const fs::path& blob) { return slurp(blob).substr(kBlobHeader); }

void rewrite_blob_payload(const fs::path& blob, const std::string& payload) {
  std::string bytes = slurp(blob).substr(0, kBlobHeader);
  if (bytes.size() != kBlobHeader) throw std::runtime_error(blob.string() + ": not a blob");
  const std::uint64_t length = payload.size(), checksum = cache::xxh3_64(as_bytes(payload));
  std::memcpy(bytes.data() + 32, &length, 8);
  std::memcpy(bytes.data() + 40, &checksum, 8);
  const std::uint64_t header_checksum = cache::xxh3_64(as_bytes(bytes.substr(0, 56)));
  std::memcpy(bytes.data() + 56, &header_checksum, 8);
  spill(blob, bytes + payload);
}

int forge_cached_pages(const fs::path& cache, std::uint8_t fill) {
  const std::string key_text = slurp(page_cache_key(cache));
  const auto key = as_bytes(key_text);
  int forged = 0;
  for (const fs::path& entry : cache_entries(cache, "jit")) {
    // A page file is the payload of a store entry.
    const std::string bytes = blob_payload(entry);
    const auto check = jit::check_page_file(as_bytes(bytes), key);
    if (check.verdict != jit::PageFileCheck::Verdict::kValid) continue;
    const auto& c = check.contents;
    jit::CompiledPage compiled;
    compiled.code.assign(c.code.code.size(), fill);
    compiled.function_offset = c.code.function_offset;
    compiled.alignment = c.code.alignment;
    compiled.entries = c.code.entries;
    std::vector<std::uint32_t> page(c.page_words.size() / 4);  // the page and its inlined callees
    std::memcpy(page.data(), c.page_words.data(), c.page_words.size());
    const auto file =
        jit::encode_page_file(page, static_cast<jit::abi::JitMode>(c.mode), c.fingerprint_hash, compiled, key);
    rewrite_blob_payload(entry, std::string(reinterpret_cast<const char*>(file.data()), file.size()));
    ++forged;
  }
  return forged;
}

fs::path plant_stale_temp_file(const fs::path& entry) {
  const fs::path temp = entry.parent_path() / (".tmp.99999.1." + entry.filename().string());
  spill(temp, "half a write");
  const std::time_t two_hours_ago = std::time(nullptr) - 7200;
  const struct timespec times[2] = {{two_hours_ago, 0}, {two_hours_ago, 0}};
  ::utimensat(AT_FDCWD, temp.c_str(), times, 0);
  return temp;
}

}  // namespace kiln::test
