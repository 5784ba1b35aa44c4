#include "libtiff_version.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>

#include "kiln/core/atomic_output.h"
#include "kiln/core/file_identity.h"
#include "kiln/core/input_limits.h"
#include "tiff_library.h"

namespace kiln::textures {
namespace fs = std::filesystem;
namespace {

constexpr const char* kHeader = "kiln-libtiff-version 1";
constexpr std::size_t kMemoBytes = 16 * 1024;

// "device inode size mtime_ns ctime_ns" of the file `path` leads to, or "none".
std::string identity_text(const fs::path& path) {
  const auto identity = file_identity(path);
  return identity ? identity->text() : "none";
}

std::string environment_value(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// Everything but the library's own line and the version: what the loader's search depends on;
// nothing when a variable holds a line break (such a search is not remembered).
std::optional<std::string> search_lines() {
  const std::string library_path = environment_value("LD_LIBRARY_PATH"), preload = environment_value("LD_PRELOAD");
  if ((library_path + preload).find('\n') != std::string::npos) return std::nullopt;
  return "ld.so.cache " + identity_text("/etc/ld.so.cache") + "\nld.so.preload " + identity_text("/etc/ld.so.preload") +
         "\nLD_LIBRARY_PATH " + library_path + "\nLD_PRELOAD " + preload + "\n";
}

// The memo's lines before "version ", for the library at `path` as it is now.
std::string expected_lines(const fs::path& path, const std::string& search) {
  return std::string(kHeader) + "\nlibrary " + identity_text(path) + " " + path.string() + "\n" + search;
}

std::optional<std::string> remembered(const fs::path& memo, const std::string& search) {
  auto read = read_input_file(memo, kMemoBytes, "libtiff version memo");
  if (!read) return std::nullopt;
  const std::string& text = *read;
  // "kiln-libtiff-version 1\nlibrary <dev> <ino> <size> <mtime> <ctime> <path>\n..."
  const std::size_t library = text.find("\nlibrary ");
  if (library == std::string::npos) return std::nullopt;
  const std::size_t line_end = text.find('\n', library + 1);
  std::istringstream fields(text.substr(library + 9, line_end - library - 9));
  std::string skip, path;
  for (int i = 0; i < 5 && fields >> skip;) ++i;
  std::getline(fields >> std::ws, path);
  if (path.empty() || path.front() != '/') return std::nullopt;
  const std::string expected = expected_lines(path, search) + "version ";
  if (text.compare(0, expected.size(), expected) != 0 || text.back() != '\n') return std::nullopt;
  std::string version = text.substr(expected.size(), text.size() - expected.size() - 1);
  if (version.empty() || version.find('\n') != std::string::npos) return std::nullopt;
  return version;
}

// The version read from the library or the memo: what the loader would map does not change
// under a running process that named its namespaces by it.
Result<std::string> find_libtiff_version(const fs::path& memo) {
  const std::optional<std::string> search = search_lines();
  if (search)
    if (auto known = remembered(memo, *search)) return *known;
  const std::int64_t load_started = wall_clock_ns();
  auto library = tiff_library();
  if (!library) return library.error();
  const std::string text = (*library)->get_version();
  std::string version = text.substr(0, text.find('\n'));
  // The file the loader mapped the library from, as the loader named it.
  Dl_info info{};
  if (!search || ::dladdr(reinterpret_cast<void*>((*library)->get_version), &info) == 0 || !info.dli_fname ||
      info.dli_fname[0] != '/' || std::string_view(info.dli_fname).find('\n') != std::string_view::npos)
    return version;
  const auto identity = file_identity(info.dli_fname);
  if (!identity || !identity->settled_at(load_started)) return version;
  const std::string lines = expected_lines(info.dli_fname, *search) + "version " + version + "\n";
  // A memo that cannot be written costs the next cook a load, nothing more. It is private, as the
  // store's files are; so is its directory, made here when no namespace of the kind is yet.
  ::mkdir(memo.parent_path().c_str(), 0700);
  (void)write_file_atomically(memo, std::as_bytes(std::span(lines)), 0600, Durability::kRenamedOnly);
  return version;
}

}  // namespace

Result<std::string> libtiff_version(const fs::path& memo) {
  // Each namespace a process opens (conversions, encodings, a tile cache's) asks: found once.
  static std::mutex mu;
  static std::optional<std::string> found;
  std::lock_guard lock(mu);
  if (found) return *found;
  auto version = find_libtiff_version(memo);
  if (version) found = *version;
  return version;
}

}  // namespace kiln::textures
