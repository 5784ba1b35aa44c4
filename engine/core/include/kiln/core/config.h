#pragma once
// Everything a user tunes, in one place. Each setting has one name and is read, in order of
// precedence, from a command-line flag, a KILN_* environment variable, the project config file
// (JSON) and a safe default. The table in config.cpp is the only list; docs and `kiln config`
// are printed from it.
//
// Thread-safety: plain values; load once at start-up, then pass copies around.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/core/result.h"

namespace kiln {

struct Config {
  std::filesystem::path cache_root;                      // cache.root
  std::uint64_t cache_disk_max_bytes = 0;                // cache.disk_max: size cap of the persistent caches
  int cache_keep_builds = 0;                             // cache.keep_builds: namespaces kept per cache kind
  std::uint64_t cache_memory_max_bytes = 0;              // cache.memory_max: in-memory budget for compiled variants
  std::string cache_remote;                              // cache.remote: redis://... or http://...; empty = none
  bool cache_remote_read_only = false;                   // cache.remote_read_only
  int cache_remote_timeout_ms = 0;                       // cache.remote_timeout: milliseconds per operation
  std::vector<std::filesystem::path> cache_remote_keys;  // cache.remote_key: farm keys (the first writes)
  std::uint64_t texture_memory_max_bytes = 0;            // textures.memory_max: 0 = automatic
  bool shader_disk_cache = true;                         // shaders.disk_cache: kill switch
  bool shader_compile_workers = true;                    // shaders.compile_workers: glslang in worker processes
  std::uint64_t shader_compile_memory_max_bytes = 0;     // shaders.compile_memory_max: per worker
  int shader_compile_timeout_s = 0;                      // shaders.compile_timeout: seconds per compile
  bool jit_cache = true;                                 // jit.cache: kill switch of the page code cache
  bool jit_cache_verify = false;                         // jit.cache_verify: recompile hits and compare
  int jit_compile_threads = 1;                           // jit.compile_threads
  bool jit_compile_workers = true;                       // jit.compile_workers: a cook's LLVM in worker processes
  std::uint64_t scripts_memory_max_bytes = 0;            // scripts.memory_max: live heap of one script
  int jobs = 0;                                          // jobs: worker threads, 0 = one per core
  std::string render_device;                             // render.device: a Vulkan device name part; empty = best
  bool render_pipeline_cache = true;                     // render.pipeline_cache: kill switch
  bool render_validate = false;                          // render.validate: Vulkan validation layer, messages fail
  bool render_decode_textures = false;                   // render.decode_textures: decode what the device cannot sample
  std::filesystem::path cook_sign_key;                   // cook.sign_key: empty = the cook does not sign
  std::vector<std::filesystem::path> player_trusted_keys;  // player.trusted_keys: public keys a set may be signed by
  bool player_require_signature = false;                   // player.require_signature: refuse unsigned sets
  std::string editor_serve;             // editor.serve: [ADDR:]PORT of the editor's page; empty = none
  bool editor_serve_read_only = false;  // editor.serve_read_only: the page may not write
};

// One documented setting. `name` is the dotted path in the config file ("cache.disk_max" is
// {"cache": {"disk_max": ...}}); `env` and `flag` are derived from it.
struct SettingInfo {
  std::string name;
  std::string env;   // KILN_CACHE_DISK_MAX
  std::string flag;  // --cache-disk-max
  std::string type;  // path, paths, size, size-or-auto, bool, int, text
                     // paths: a list (a JSON array or one string; ':' between paths in the
                     // environment; each flag adds one, and the flags replace the other sources)
  std::string default_text;
  std::string help;
};

std::span<const SettingInfo> config_settings();

struct ConfigInputs {
  // --config PATH. When unset, KILN_CONFIG, then `default_file` if it exists.
  std::optional<std::filesystem::path> file;
  std::filesystem::path default_file = "kiln.json";
  // Environment: KILN_* plus HOME and XDG_CACHE_HOME (for the default cache root).
  std::map<std::string, std::string> env;
  // Flags by setting flag name ("--jobs") to raw value, in command-line order.
  std::vector<std::pair<std::string, std::string>> flags;

  // The environment of this process (only the variables config reads).
  static std::map<std::string, std::string> process_env();
};

struct LoadedConfig {
  Config config;
  std::filesystem::path file;                 // the config file read, empty when none
  std::map<std::string, std::string> origin;  // setting name -> "default", "file", "env KILN_X", "flag --x"
};

// Fails with a message naming the file and JSON pointer, the variable or the flag, and the problem.
Result<LoadedConfig> load_config(const ConfigInputs& inputs);

// Human-readable (one line per setting, with its origin) or JSON.
std::string format_config(const LoadedConfig& loaded, bool json);

// "512MiB", "4GiB", "1000000", "2GB" -> bytes. Binary (KiB, MiB, GiB, TiB) and decimal (KB, MB, GB, TB).
std::optional<std::uint64_t> parse_size(std::string_view text);
std::string format_size(std::uint64_t bytes);

}  // namespace kiln
