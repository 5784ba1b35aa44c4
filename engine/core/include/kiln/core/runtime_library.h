#pragma once
// A shared library opened at run time (dlopen) and its functions looked up by name: for
// dependencies that only some runs need, so that every other process starts without loading them.
// The library stays loaded for the rest of the process (what it hands out may live that long).
//
// Thread-safety: one RuntimeLibrary per thread while its functions are bound; the functions bound
// are then plain pointers, usable from any thread.

#include <filesystem>
#include <string>
#include <string_view>

#include "kiln/core/result.h"

namespace kiln {

// The check a plugin passes before it is loaded by path (dlopen would wait on a FIFO, and map a
// truncated file, which ends the process with SIGBUS when a missing page is touched): a regular
// file owned by this user or root and not writable by others, whose ELF header and loadable
// segments lie inside it. The error names the file and the problem; `what` names the plugin
// ("the script compiler").
Status check_plugin_file(const std::filesystem::path& file, std::string_view what);

// A plugin of this program (a shared library found with find_program_file) and its entry points
// (C linkage). It stays loaded for the rest of the process.
class Plugin {
 public:
  // `file` checked as above and opened. Errors name the file and `what` ("script compiler"): not
  // installed (an empty `file`; `plugin_name` says which file), refused by the check, or not
  // loadable (the loader's reason).
  static Result<Plugin> open(const std::filesystem::path& file, std::string_view plugin_name, std::string_view what);
  // The entry point `symbol`; missing, the plugin is not this Kiln's.
  Result<void*> entry(const char* symbol) const;

 private:
  Plugin(void* handle, std::filesystem::path file, std::string what)
      : handle_(handle), file_(std::move(file)), what_(std::move(what)) {}
  void* handle_;
  std::filesystem::path file_;
  std::string what_;
};

class RuntimeLibrary {
 public:
  // Opens `soname` (the ABI's name, e.g. "libtiff.so.6"); the error says what needed it (`purpose`).
  static Result<RuntimeLibrary> open(const char* soname, const std::string& purpose);

  // Looks `name` up into `function` (a pointer of the function's own type); a missing one is
  // remembered for complete().
  template <class Function>
  void bind(Function*& function, const char* name) {
    function = reinterpret_cast<Function*>(symbol(name));
  }
  // Every bind() found its function; else an error naming the library and the missing ones.
  Status complete() const;

 private:
  RuntimeLibrary(void* handle, const char* soname) : handle_(handle), soname_(soname) {}
  void* symbol(const char* name);

  void* handle_;
  const char* soname_;
  std::string missing_;
};

}  // namespace kiln
