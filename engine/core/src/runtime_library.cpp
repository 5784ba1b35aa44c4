#include "kiln/core/runtime_library.h"

#include <dlfcn.h>
#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "kiln/core/input_limits.h"

namespace kiln {
namespace {

bool read_at(int fd, void* out, std::size_t n, std::uint64_t at) {
  for (std::size_t done = 0; done < n;) {
    const ssize_t got = ::pread(fd, static_cast<char*>(out) + done, n - done, off_t(at + done));
    if (got <= 0) return false;
    done += std::size_t(got);
  }
  return true;
}

// `offset + length` within `size`, without overflow.
bool within(std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
  return offset <= size && length <= size - offset;
}

std::string check_elf(int fd, std::uint64_t size) {
  Elf64_Ehdr h{};
  if (size < sizeof h || !read_at(fd, &h, sizeof h, 0) || std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0)
    return "not a shared library (no ELF header)";
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_phentsize != sizeof(Elf64_Phdr)) return "not a 64-bit shared library";
  if (!within(h.e_phoff, std::uint64_t(h.e_phnum) * sizeof(Elf64_Phdr), size))
    return "truncated (its program headers lie past the end of the file)";
  std::vector<Elf64_Phdr> segments(h.e_phnum);
  if (!segments.empty() && !read_at(fd, segments.data(), segments.size() * sizeof(Elf64_Phdr), h.e_phoff))
    return "cannot read its program headers";
  for (const Elf64_Phdr& s : segments)
    if (s.p_type == PT_LOAD && !within(s.p_offset, s.p_filesz, size))
      return "truncated (" + std::to_string(size) + " bytes, but a segment ends at byte " +
             std::to_string(s.p_offset + s.p_filesz) + ")";
  if (h.e_shoff != 0 && !within(h.e_shoff, std::uint64_t(h.e_shnum) * h.e_shentsize, size))
    return "truncated (its section headers lie past the end of the file)";
  return {};
}

}  // namespace

Status check_plugin_file(const std::filesystem::path& file, std::string_view what) {
  constexpr std::uint64_t kMaxPluginBytes = 4ull << 30;
  auto opened = open_input_file(file, kMaxPluginBytes, what);
  if (!opened) return opened.error();
  struct stat st {};
  std::string problem;
  if (::fstat(opened->fd, &st) != 0)
    problem = "cannot read it";
  else if (st.st_uid != ::geteuid() && st.st_uid != 0)
    problem = "owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " + std::to_string(::geteuid()) +
              ") or root; refusing to load it";
  else if (st.st_mode & S_IWOTH)
    problem = "writable by every user; refusing to load it";
  else
    problem = check_elf(opened->fd, opened->size);
  ::close(opened->fd);
  if (problem.empty()) return {};
  return make_error(file.string() + ": " + std::string(what) + ": " + problem);
}

Result<RuntimeLibrary> RuntimeLibrary::open(const char* soname, const std::string& purpose) {
  // Never closed: see the header.
  void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) return make_error("cannot load " + purpose + ": " + ::dlerror());
  return RuntimeLibrary(handle, soname);
}

void* RuntimeLibrary::symbol(const char* name) {
  void* found = ::dlsym(handle_, name);
  if (!found) missing_ += (missing_.empty() ? "" : ", ") + std::string(name);
  return found;
}

Status RuntimeLibrary::complete() const {
  if (missing_.empty()) return {};
  return make_error(std::string(soname_) + " lacks " + missing_);
}

Result<Plugin> Plugin::open(const std::filesystem::path& file, std::string_view plugin_name, std::string_view what) {
  const std::string the = "the " + std::string(what);
  if (file.empty()) return make_error(the + " (" + std::string(plugin_name) + ") is not installed beside this program");
  KILN_TRY(check_plugin_file(file, the));
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed: see the header
  if (!handle) return make_error(file.string() + ": cannot load " + the + ": " + ::dlerror());
  return Plugin(handle, file, std::string(what));
}

Result<void*> Plugin::entry(const char* symbol) const {
  if (void* found = ::dlsym(handle_, symbol)) return found;
  return make_error(file_.string() + ": not this Kiln's " + what_ + " (no " + symbol + ")");
}

}  // namespace kiln
